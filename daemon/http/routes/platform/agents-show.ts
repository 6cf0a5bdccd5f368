import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { agentView } from '../../../platform/views.js'
import { platformParams } from './body.js'

const r = platformRoutes.showAgent

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const { id } = platformParams(c, r.params)
    const agent = await s.ownedAgent(caller, id)
    return c.json(agentView(agent, await s.spends.spentToday(agent.id), s.tokenAddress))
  },
})
