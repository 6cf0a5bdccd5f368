import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { userView } from '../../../platform/views.js'

const r = platformRoutes.whoamiUser

export default platformRoute(r, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  const user = (await s.store.user(userId))!
  return c.json(userView(user, { agents: await s.store.countAgents(userId), endpoints: await s.endpoints.count(userId) }))
})
