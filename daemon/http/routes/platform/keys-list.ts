import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentKeyView } from '../../../platform/views.js'

const r = platformRoutes.listAgentKeys

export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json({ keys: (await s.keys.list(agent.id)).map(agentKeyView) })
})
