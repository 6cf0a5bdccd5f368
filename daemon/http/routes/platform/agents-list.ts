import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.listAgents

export default platformRoute(r, async (c, s, { caller }) => {
  return c.json({ agents: await s.agents.list(s.userOf(caller)) })
})
