import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.getLimits

export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.limits.get(agent))
})
