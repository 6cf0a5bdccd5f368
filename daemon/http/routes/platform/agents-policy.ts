import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import type { PlatformOperations } from '../../../platform/service.js'
import type { AgentRow } from '../../../platform/store.js'
import { platformRoute } from './contract-route.js'

const view = async (s: PlatformOperations, agent: AgentRow) => {
  const { agent: rules, user: userRules } = await s.policies.scoped(agent)
  return { agentId: agent.id, rules, userRules }
}

/** An agent key may read its own rules (what it may pay), never change them. */
export const getAgentPolicy = platformRoute(platformRoutes.getAgentPolicy, async (c, s, { params, caller }) => {
  return c.json(await view(s, await s.ownedAgent(caller, params.id)))
})

/** Only the owning user sets an agent's rules; `allowHosts` is the same list as the limits' `allowedHosts`. */
export const setAgentPolicy = platformRoute(platformRoutes.setAgentPolicy, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  return c.json(await view(s, await s.owner.setAgentRules(agent, body)))
})
