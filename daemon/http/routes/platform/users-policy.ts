import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import type { PlatformOperations } from '../../../platform/service.js'
import { platformRoute } from './contract-route.js'

const view = async (s: PlatformOperations, userId: string) => ({
  rules: await s.policies.userRules(userId),
  default: await s.policies.defaultPolicy(userId),
})

export const getUserPolicy = platformRoute(platformRoutes.getUserPolicy, async (c, s, { caller }) =>
  c.json(await view(s, s.userOf(caller))),
)

/** The user's rules apply to every one of its agents at once, beside each agent's own. */
export const setUserPolicy = platformRoute(platformRoutes.setUserPolicy, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  await s.owner.setUserRules(userId, body)
  return c.json(await view(s, userId))
})

/**
 * Copied into agents created afterwards (daemon/http/routes/platform/agents-create.ts); existing agents keep theirs.
 */
export const setDefaultPolicy = platformRoute(platformRoutes.setDefaultPolicy, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  await s.owner.setDefaultPolicy(userId, body)
  return c.json(await view(s, userId))
})
