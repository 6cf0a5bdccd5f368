import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentView } from '../../../platform/views.js'
import type { PlatformService } from '../../../platform/service.js'

/**
 * Freezing takes only the user key (an owner who fears a leak acts at once); unfreezing may take a
 * dashboard sign-in instead (config `platform.unfreezeRequiresDashboard`), so a stolen user key
 * cannot undo a freeze. An agent key can do neither. Both are idempotent; a second freeze keeps
 * the first time.
 */
export function refuseUserKeyUnfreeze(s: PlatformService): void {
  if (s.unfreezeRequiresDashboard) {
    throw new BaseError('FORBIDDEN', 'on this deployment an agent is unfrozen from the dashboard only (signed in with the owning wallet); a user key can freeze but not unfreeze', {
      details: 'Sign in to the dashboard, open the agent and choose Unfreeze (config platform.unfreezeRequiresDashboard).',
    })
  }
}

const views = (s: PlatformService, rows: Parameters<typeof agentView>[0][]) =>
  Promise.all(rows.map(async (a) => agentView(a, await s.spends.budget(a.id), s.tokenAddress)))

export const freezeAgent = platformRoute(platformRoutes.freezeAgent, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  const [row] = await s.store.setFrozen({ agentId: agent.id }, true)
  s.log.info({ agent: agent.id }, 'agent frozen')
  return c.json((await views(s, [row!]))[0]!)
})

export const unfreezeAgent = platformRoute(platformRoutes.unfreezeAgent, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  refuseUserKeyUnfreeze(s)
  const [row] = await s.store.setFrozen({ agentId: agent.id }, false)
  s.log.info({ agent: agent.id }, 'agent unfrozen')
  return c.json((await views(s, [row!]))[0]!)
})

export const freezeAllAgents = platformRoute(platformRoutes.freezeAllAgents, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  const rows = await s.store.setFrozen({ userId }, true)
  s.log.info({ user: userId, agents: rows.length }, 'all agents of the user frozen')
  return c.json({ agents: await views(s, rows) })
})

export const unfreezeAllAgents = platformRoute(platformRoutes.unfreezeAllAgents, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  refuseUserKeyUnfreeze(s)
  const rows = await s.store.setFrozen({ userId }, false)
  s.log.info({ user: userId, agents: rows.length }, 'all agents of the user unfrozen')
  return c.json({ agents: await views(s, rows) })
})
