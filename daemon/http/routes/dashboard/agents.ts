import { agentKeyParams, dashboardPaths, idParams, labelBody } from '../../../../src/sdk/dashboard/index.js'
import { createAgentBody } from '../../../../src/sdk/platform/agents.js'
import { setLimitsBody } from '../../../../src/sdk/platform/limits.js'
import { route } from '../../route.js'

/** The wallet's agents through the platform service (docs/platform-api.md), with the platform's own schemas. */
export const agentsList = route({
  method: 'GET',
  path: dashboardPaths.agents,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) => c.json(await s.listAgents(session.wallet)),
})

export const agentsCreate = route({
  method: 'POST',
  path: dashboardPaths.agents,
  auth: 'session',
  surface: 'dashboard',
  body: createAgentBody,
  maxBody: 4096,
  handler: async (c, s, { session, body }) => c.json(await s.createAgent(session.wallet, body)),
})

export const agentShow = route({
  method: 'GET',
  path: dashboardPaths.agent,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.agentDetail(session.wallet, params.id)),
})

export const agentLimits = route({
  method: 'POST',
  path: dashboardPaths.agentLimits,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  body: setLimitsBody,
  maxBody: 16_384,
  handler: async (c, s, { session, params, body }) => c.json(await s.setLimits(session.wallet, params.id, body)),
})

export const agentKeysCreate = route({
  method: 'POST',
  path: dashboardPaths.agentKeys,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  body: labelBody,
  maxBody: 4096,
  handler: async (c, s, { session, params, body }) =>
    c.json(await s.createAgentKey(session.wallet, params.id, body.label)),
})

export const agentKeysRevoke = route({
  method: 'DELETE',
  path: dashboardPaths.agentKey,
  auth: 'session',
  surface: 'dashboard',
  params: agentKeyParams,
  handler: async (c, s, { session, params }) => c.json(await s.revokeAgentKey(session.wallet, params.id, params.keyId)),
})

/**
 * Freeze and unfreeze (session, origin and CSRF checked): unfreezing here works whatever
 * `platform.unfreezeRequiresDashboard` says.
 */
export const agentFreeze = route({
  method: 'POST',
  path: dashboardPaths.agentFreeze,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.setFrozen(session.wallet, params.id, true)),
})

export const agentUnfreeze = route({
  method: 'POST',
  path: dashboardPaths.agentUnfreeze,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.setFrozen(session.wallet, params.id, false)),
})
