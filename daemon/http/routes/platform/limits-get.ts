import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { limitsView } from '../../../platform/views.js'

const r = platformRoutes.getLimits

export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(limitsView(agent, await s.spends.budget(agent.id)))
})
