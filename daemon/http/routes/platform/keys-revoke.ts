import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { agentKeyView } from '../../../platform/views.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.revokeAgentKey

/** Takes effect at once: the next request with the key is 401. Revoking twice answers the same. */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const { id, keyId } = params
  const agent = await s.ownedAgent(caller, id)
  return c.json(agentKeyView(await s.keys.revoke(agent.id, keyId)))
})
