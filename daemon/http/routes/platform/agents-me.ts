import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { agentView } from '../../../platform/views.js'

const r = platformRoutes.whoamiAgent

/** SPEC §4.5: the agent an agent key belongs to. Registered before GET /api/agents/:id. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'agent')
    const agent = await s.ownedAgent(caller, caller.kind === 'agent' ? caller.agentId : '')
    return c.json(agentView(agent, await s.spends.spentToday(agent.id), s.tokenAddress))
  },
})
