import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

/** The user's budgets across all its agents: read and set with the user key only (an agent key is FORBIDDEN). */
export const getUserLimits = platformRoute(platformRoutes.getUserLimits, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  return c.json(await s.limits.user(userId))
})

export const setUserLimits = platformRoute(platformRoutes.setUserLimits, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  return c.json(await s.limits.setUser(userId, body))
})
