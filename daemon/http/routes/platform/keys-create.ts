import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { agentKeyView } from '../../../platform/views.js'
import { platformBody, platformParams } from './body.js'

const r = platformRoutes.createAgentKey

/** The key is in this answer only; the store keeps its SHA-256. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'user')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    const body = await platformBody(c, r.body)
    const { key, agentKey } = await s.store.createAgentKey(agent.id, body.label)
    return c.json({ key: agentKeyView(key), agentKey })
  },
})
