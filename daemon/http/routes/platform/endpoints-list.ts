import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { endpointView } from '../../../seller/endpoints.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.listEndpoints

export default platformRoute(r, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  return c.json({ endpoints: (await s.endpoints.list(userId)).map((e) => endpointView(e, s.platformUrl)) })
})
