import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { endpointView } from '../../../platform/endpoints.js'
import { route } from '../../route.js'

const r = platformRoutes.listEndpoints

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const userId = s.userOf(await s.caller(c, 'user'))
    return c.json({ endpoints: (await s.endpoints.list(userId)).map((e) => endpointView(e, s.platformUrl)) })
  },
})
