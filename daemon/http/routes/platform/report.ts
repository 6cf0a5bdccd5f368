import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.report

/** The agent's spending totals per day, host, token and kind, with its limits and what today used. */
export default platformRoute(r, async (c, s, { params, query, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  const [totals, limits] = await Promise.all([s.history.report(agent.id, query), s.limits.get(agent)])
  return c.json({ agentId: agent.id, ...totals, limits })
})
