import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { agentKeyView } from '../../../platform/views.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.listAgentKeys

export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json({ keys: (await s.keys.list(agent.id)).map(agentKeyView) })
})
