import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { limitsView } from '../../../platform/views.js'
import { platformBody, platformParams } from './body.js'

const r = platformRoutes.setLimits

/** Only the owning user sets limits: an agent key, even on its own agent, is FORBIDDEN. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    s.userOf(caller)
    const body = await platformBody(c, r.body)
    const updated = await s.store.setLimits(agent.id, body)
    return c.json(limitsView(updated, await s.spends.spentToday(agent.id)))
  },
})
