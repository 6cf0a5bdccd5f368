import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import type { PlatformService } from '../../../platform/service.js'

const view = async (s: PlatformService, userId: string) => ({ rules: await s.policies.userRules(userId), default: await s.policies.defaultPolicy(userId) })

export const getUserPolicy = platformRoute(platformRoutes.getUserPolicy, async (c, s, { caller }) => c.json(await view(s, s.userOf(caller))))

/** The user's rules apply to every one of its agents at once, beside each agent's own. */
export const setUserPolicy = platformRoute(platformRoutes.setUserPolicy, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  await s.policies.setUserRules(userId, body)
  s.log.info({ user: userId }, 'user policy set')
  return c.json(await view(s, userId))
})

/** Copied into agents created afterwards (daemon/http/routes/platform/agents-create.ts); existing agents keep theirs. */
export const setDefaultPolicy = platformRoute(platformRoutes.setDefaultPolicy, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  await s.policies.setDefaultPolicy(userId, body)
  s.log.info({ user: userId }, 'default agent policy set')
  return c.json(await view(s, userId))
})
