import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentKeyView } from '../../../platform/views.js'

const r = platformRoutes.revokeAgentKey

/** Takes effect at once: the next request with the key is 401. Revoking twice answers the same. */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const { id, keyId } = params
  const agent = await s.ownedAgent(caller, id)
  const key = await s.store.revokeAgentKey(agent.id, keyId)
  if (!key) throw new BaseError('NOT_FOUND', `no key ${keyId} on agent ${agent.id}`)
  return c.json(agentKeyView(key))
})
