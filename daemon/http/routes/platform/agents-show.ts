import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentView } from '../../../platform/views.js'

const r = platformRoutes.showAgent

export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(agentView(agent, await s.spends.budget(agent.id), s.tokenAddress))
})
