import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { userLimitsView } from '../../../platform/views.js'

/** The user's budgets across all its agents: read and set with the user key only (an agent key is FORBIDDEN). */
export const getUserLimits = platformRoute(platformRoutes.getUserLimits, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  return c.json(userLimitsView((await s.store.user(userId))!, await s.spends.userSpent(userId)))
})

export const setUserLimits = platformRoute(platformRoutes.setUserLimits, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  const updated = await s.store.setUserLimits(userId, body)
  s.log.info({ user: userId }, 'user limits set')
  return c.json(userLimitsView(updated, await s.spends.userSpent(userId)))
})
