import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { limitsView } from '../../../platform/views.js'
import { platformParams } from './body.js'

const r = platformRoutes.getLimits

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    return c.json(limitsView(agent, await s.spends.spentToday(agent.id)))
  },
})
