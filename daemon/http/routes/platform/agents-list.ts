import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { agentView } from '../../../platform/views.js'

const r = platformRoutes.listAgents

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const userId = s.userOf(await s.caller(c, 'user'))
    const rows = await s.store.agents(userId)
    const agents = await Promise.all(rows.map(async (a) => agentView(a, await s.spends.spentToday(a.id), s.tokenAddress)))
    return c.json({ agents })
  },
})
