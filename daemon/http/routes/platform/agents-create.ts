import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { agentView } from '../../../platform/views.js'

const r = platformRoutes.createAgent

/** A new agent with a new wallet, its key sealed in the store (never returned). */
export default platformRoute(r, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  if (!s.evm[body.network]) {
    throw new BaseError('NETWORK_UNSUPPORTED', `${body.network} is not served by this deployment (profile ${s.profile}); use one of ${Object.keys(s.evm).filter((k) => s.agentNetworks.includes(k)).join(', ')}`)
  }
  if (!s.canCreateAgents) {
    throw new BaseError('FLOW_DISABLED', 'agents cannot be created: the platform wallet key is not configured (set keys.platformWallet or PARX_PLATFORM_WALLET_KEY to 32 bytes of hex)')
  }
  await s.quotas.agent(userId)
  // The user's default policy is copied in at creation (a later change of the default leaves this
  // agent as it is); its limits, where set, take the place of the deployment's new-agent limits.
  const d = await s.policies.defaultPolicy(userId)
  const limits = { ...s.newAgentLimits, perPaymentUsd: d.perPaymentUsd ?? s.newAgentLimits.perPaymentUsd ?? null, dailyUsd: d.dailyUsd ?? s.newAgentLimits.dailyUsd ?? null }
  const created = await s.store.createAgent({ userId, name: body.name, network: body.network, limits })
  await s.policies.copyDefault(created.id, d)
  const agent = (await s.store.agent(created.id))!
  return c.json(agentView(agent, await s.spends.budget(agent.id), s.tokenAddress))
})
