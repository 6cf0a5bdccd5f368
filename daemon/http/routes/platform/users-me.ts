import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { userView } from '../../../platform/views.js'

const r = platformRoutes.whoamiUser

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const userId = s.userOf(await s.caller(c, 'user'))
    const user = (await s.store.user(userId))!
    return c.json(userView(user, { agents: await s.store.countAgents(userId), endpoints: await s.endpoints.count(userId) }))
  },
})
