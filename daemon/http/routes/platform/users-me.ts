import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { userView } from '../../../platform/views.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.whoamiUser

export default platformRoute(r, async (c, s, { caller }) => {
  const { user, ...counts } = await s.users.get(s.userOf(caller))
  return c.json(userView(user, counts))
})
