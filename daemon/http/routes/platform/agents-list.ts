import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentView } from '../../../platform/views.js'

const r = platformRoutes.listAgents

export default platformRoute(r, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  const rows = await s.store.agents(userId)
  const agents = await Promise.all(rows.map(async (a) => agentView(a, await s.spends.budget(a.id), s.tokenAddress)))
  return c.json({ agents })
})
