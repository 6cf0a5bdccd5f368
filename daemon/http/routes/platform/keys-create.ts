import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { agentKeyView } from '../../../platform/views.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.createAgentKey

/** The key is in this answer only; the store keeps its SHA-256. */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  const { key, agentKey } = await s.keys.create(agent.id, body.label)
  return c.json({ key: agentKeyView(key), agentKey })
})
