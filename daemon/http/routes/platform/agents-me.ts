import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.whoamiAgent

/**
 * docs/platform-api.md "GET /api/agents/me": the agent an agent key belongs to. Registered before GET /api/agents/:id.
 */
export default platformRoute(r, async (c, s, { caller }) => {
  const agent = await s.ownedAgent(caller, caller.kind === 'agent' ? caller.agentId : '')
  return c.json(await s.agentView(agent))
})
