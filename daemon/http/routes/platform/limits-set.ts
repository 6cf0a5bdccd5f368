import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.setLimits

/** Only the owning user sets limits: an agent key, even on its own agent, is FORBIDDEN. */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  return c.json(await s.limits.set(agent, body))
})
