import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { agentKeyView } from '../../../platform/views.js'
import { platformParams } from './body.js'

const r = platformRoutes.listAgentKeys

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'user')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    return c.json({ keys: (await s.store.agentKeys(agent.id)).map(agentKeyView) })
  },
})
