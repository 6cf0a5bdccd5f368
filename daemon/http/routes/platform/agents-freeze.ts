import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import type { PlatformOperations } from '../../../platform/service.js'
import { platformRoute } from './contract-route.js'

/**
 * Freezing takes only the user key (an owner who fears a leak acts at once); unfreezing may take a
 * dashboard sign-in instead (config `platform.unfreezeRequiresDashboard`), so a stolen user key
 * cannot undo a freeze. An agent key can do neither. Both are idempotent; a second freeze keeps
 * the first time.
 */
export function refuseUserKeyUnfreeze(s: Pick<PlatformOperations, 'unfreezeRequiresDashboard'>): void {
  if (s.unfreezeRequiresDashboard) {
    throw new BaseError(
      'FORBIDDEN',
      'on this deployment an agent is unfrozen from the dashboard only (signed ' +
        'in with the owning wallet); a user key can freeze but not unfreeze',
      {
        details:
          'Sign in to the dashboard, open the agent and choose Unfreeze (config platform.unfreezeRequiresDashboard).',
      },
    )
  }
}

export const freezeAgent = platformRoute(platformRoutes.freezeAgent, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  return c.json(await s.freeze.agent(agent.id, true))
})

export const unfreezeAgent = platformRoute(platformRoutes.unfreezeAgent, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  refuseUserKeyUnfreeze(s)
  return c.json(await s.freeze.agent(agent.id, false))
})

export const freezeAllAgents = platformRoute(platformRoutes.freezeAllAgents, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  return c.json({ agents: await s.freeze.all(userId, true) })
})

export const unfreezeAllAgents = platformRoute(platformRoutes.unfreezeAllAgents, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  refuseUserKeyUnfreeze(s)
  return c.json({ agents: await s.freeze.all(userId, false) })
})
