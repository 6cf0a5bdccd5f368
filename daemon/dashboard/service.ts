import { type Address, getAddress } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import type { PartnerKeyView } from '../../src/sdk/dashboard/fields.js'
import type { SetPayeeRulesBody } from '../../src/sdk/platform/policy.js'
import type { PartnerKey, PartnerKeyStore } from '../auth/partner-keys.js'
import type { KeysService } from '../auth/service.js'
import type { LimitPolicy } from '../buyer/limits.js'
import { type PaymentsQueryParsed, paymentsPage } from '../buyer/payments.js'
import type { RateLimiter } from '../http/middleware/rate-limit.js'
import type { PlatformService } from '../platform/service.js'
import { policyOf } from '../platform/store.js'
import type { UserKeyRow, UserKeys } from '../platform/user-keys.js'
import { agentKeyView, agentView, limitsView } from '../platform/views.js'
import type { Store } from '../store/store.js'
import { dashboardAlerts } from './alerts.js'
import { dashboardApprovals } from './approvals.js'
import type { DashboardOrigin } from './origin.js'
import type { SessionStore } from './sessions.js'
import type { Siwe } from './siwe.js'
import { spendingByDay } from './spending.js'

const iso = (ms: number | string) => new Date(Number(ms)).toISOString()

/**
 * The dashboard's surface (daemon/services.ts): SIWE sign-in and sessions, the signed-in wallet's
 * partner keys, its platform user's CLI keys, and its agents. Every call names the wallet of the
 * session; a key or agent of another wallet answers NOT_FOUND, exactly like one that does not exist.
 */
export type DashboardParameters = {
  store: Store
  siwe: Siwe
  sessions: SessionStore
  /** Sign-in attempts per client address (SIWE messages and logins), apart from the API's limiter. */
  loginLimiter: RateLimiter
  /**
   * The origin sign-in binds and the cookie's Secure flag (the configured public origin: daemon/dashboard/origin.ts).
   */
  origin: DashboardOrigin
  partnerKeys: PartnerKeyStore
  /** Changes go through the key service, which applies them to this process's verdict cache at once. */
  keys: KeysService
  platform: PlatformService
  userKeys: UserKeys
  /** True when replicas share the store: the others see a change when their verdict cache expires. */
  replicas: boolean
}

export function dashboardService(p: DashboardParameters) {
  const mineKey = async (wallet: string, id: string): Promise<PartnerKey> => {
    const k = await p.partnerKeys.get(id)
    if (!k || k.state === 'deleted' || k.ownerWallet !== wallet.toLowerCase())
      throw new BaseError('NOT_FOUND', `no partner key ${id} for this wallet`)
    return k
  }
  const userOf = (wallet: string) =>
    p.platform.store.userByWallet(getAddress(wallet)).then((u) => u ?? p.userKeys.userForWallet(getAddress(wallet)))
  const ownedAgent = async (wallet: string, id: string) =>
    p.platform.ownedAgent({ kind: 'user', userId: (await userOf(wallet)).id }, id)
  const policyOfAgent = async (agent: Parameters<typeof p.platform.policies.scoped>[0]) => {
    const { agent: rules, user: userRules } = await p.platform.policies.scoped(agent)
    return { rules, userRules }
  }
  return {
    siwe: p.siwe,
    sessions: p.sessions,
    loginLimiter: p.loginLimiter,
    origin: p.origin,
    propagation: p.replicas
      ? 'Changes apply at once on every server: replicas are told through the ' +
        'shared database. If one misses the message it still catches up within ' +
        '30 seconds for a new key and 5 minutes for a deactivation or deletion.'
      : 'Changes apply at once (one server, no other replica caches a verdict).',

    /** The Alerts view: the user's alert rules and the alerts they fired (./alerts.ts). */
    alerts: dashboardAlerts(p.platform, userOf),
    /** The platform user of a wallet that just signed in: created now on first sign-in. */
    signedIn: (wallet: Address) => p.userKeys.userForWallet(wallet),

    listPartnerKeys: async (wallet: string) => (await p.partnerKeys.listByWallet(wallet)).map(partnerKeyView),
    async createPartnerKey(wallet: string, body: { name: string; description?: string }) {
      await p.platform.quotas.partnerKey(wallet)
      const { key, record } = await p.keys.create({
        name: body.name,
        description: body.description || undefined,
        owner: wallet.toLowerCase(),
        ownerWallet: wallet,
      })
      return { key: partnerKeyView(record), secret: key }
    },
    async deactivatePartnerKey(wallet: string, id: string) {
      const k = await mineKey(wallet, id)
      return partnerKeyView((await p.keys.setState(k.id, 'deactivated'))!)
    },
    async deletePartnerKey(wallet: string, id: string) {
      const k = await mineKey(wallet, id)
      await p.keys.setState(k.id, 'deleted')
      return { id: k.id, state: 'deleted' as const }
    },

    async listUserKeys(wallet: string) {
      const user = await userOf(wallet)
      return { userId: user.id, keys: (await p.userKeys.list(user.id)).map(userKeyView) }
    },
    async createUserKey(wallet: string) {
      const user = await userOf(wallet)
      await p.platform.quotas.userKey(user.id)
      const { key, userKey } = await p.userKeys.create(user.id)
      return { key: userKeyView(key), userKey }
    },
    async revokeUserKey(wallet: string, id: string) {
      const k = await p.userKeys.revoke((await userOf(wallet)).id, id)
      if (!k) throw new BaseError('NOT_FOUND', `no user key ${id} for this wallet`)
      return userKeyView(k)
    },

    async listAgents(wallet: string) {
      const user = await userOf(wallet)
      const agents = await p.platform.store.agents(user.id)
      const views = await Promise.all(
        agents.map(async (a) => agentView(a, await p.platform.spends.budget(a.id), p.platform.tokenAddress)),
      )
      const networks = Object.keys(p.platform.evm).filter((k) => p.platform.agentNetworks.includes(k))
      return { agents: views, networks, canCreate: p.platform.canCreateAgents }
    },
    async createAgent(wallet: string, body: { name: string; network: string }) {
      const user = await userOf(wallet)
      if (!p.platform.evm[body.network])
        throw new BaseError('NETWORK_UNSUPPORTED', `${body.network} is not served by this deployment`)
      if (!p.platform.canCreateAgents)
        throw new BaseError('FLOW_DISABLED', 'agents cannot be created: the platform wallet key is not configured')
      await p.platform.quotas.agent(user.id)
      const agent = await p.platform.store.createAgent({
        userId: user.id,
        name: body.name,
        network: body.network,
        limits: p.platform.newAgentLimits,
      })
      return agentView(agent, await p.platform.spends.budget(agent.id), p.platform.tokenAddress)
    },
    async agentDetail(wallet: string, id: string) {
      const agent = await ownedAgent(wallet, id)
      const spent = await p.platform.spends.budget(agent.id)
      const [balance, keys, policy] = await Promise.all([
        p.platform.balance(agent).then(
          (b) => ({ balance: b, error: null }),
          (e: Error) => ({ balance: null, error: e.message }),
        ),
        p.platform.store.agentKeys(agent.id),
        policyOfAgent(agent),
      ])
      return {
        agent: agentView(agent, spent, p.platform.tokenAddress),
        balance: balance.balance && {
          tokens: balance.balance.tokens.map((t) => ({ symbol: t.symbol, amount: t.amount })),
          native: { symbol: balance.balance.native.symbol, amount: balance.balance.native.amount },
        },
        balanceError: balance.error,
        keys: keys.map(agentKeyView),
        limits: limitsView(agent, spent),
        policy,
      }
    },
    /**
     * The chart of the agent page: spending per UTC day over 30 days and the daily limit
     * (src/sdk/dashboard/spending.ts).
     */
    async agentSpending(wallet: string, id: string, now = Date.now()) {
      const agent = await ownedAgent(wallet, id)
      return {
        agentId: agent.id,
        timeZone: 'UTC' as const,
        days: await spendingByDay(p.store, agent.id, now),
        dailyLimitUsd: policyOf(agent).dailyUsd,
      }
    },
    /** One page of the agent's payments, filtered: the platform's history query (daemon/buyer/payments.ts). */
    async agentPayments(wallet: string, id: string, query: PaymentsQueryParsed) {
      const agent = await ownedAgent(wallet, id)
      return paymentsPage(p.store, agent.id, query)
    },
    async setLimits(wallet: string, id: string, body: Partial<LimitPolicy>) {
      const agent = await ownedAgent(wallet, id)
      const updated = await p.platform.store.setLimits(agent.id, body)
      return limitsView(updated, await p.platform.spends.budget(agent.id))
    },
    /**
     * The agent's payee and network rules, as `parx agent policy` sets them (its `allowHosts` is its limits'
     * `allowedHosts`).
     */
    async setPolicy(wallet: string, id: string, body: SetPayeeRulesBody) {
      const agent = await ownedAgent(wallet, id)
      await p.platform.policies.setAgentRules(agent, body)
      p.platform.log.info({ agent: agent.id, wallet }, 'agent policy set (dashboard)')
      return { agentId: agent.id, ...(await policyOfAgent((await p.platform.store.agent(agent.id))!)) }
    },
    /** Pending and decided approvals of the wallet's user; approve and deny (./approvals.ts). */
    approvals: dashboardApprovals({
      approvals: p.platform.approvals,
      agents: (userId) => p.platform.store.agents(userId),
      log: p.platform.log,
      userOf,
    }),
    /**
     * Freeze or unfreeze from a signed-in session: the one way to unfreeze where `platform.unfreezeRequiresDashboard`
     * is set.
     */
    async setFrozen(wallet: string, id: string, frozen: boolean) {
      const agent = await ownedAgent(wallet, id)
      const [row] = await p.platform.store.setFrozen({ agentId: agent.id }, frozen)
      p.platform.log.info(
        { agent: agent.id, wallet },
        frozen ? 'agent frozen (dashboard)' : 'agent unfrozen (dashboard)',
      )
      return agentView(row!, await p.platform.spends.budget(agent.id), p.platform.tokenAddress)
    },
    async createAgentKey(wallet: string, id: string, label?: string) {
      const agent = await ownedAgent(wallet, id)
      await p.platform.quotas.agentKey(agent.id)
      const { key, agentKey } = await p.platform.store.createAgentKey(agent.id, label)
      return { key: agentKeyView(key), agentKey }
    },
    async revokeAgentKey(wallet: string, id: string, keyId: string) {
      const agent = await ownedAgent(wallet, id)
      const k = await p.platform.store.revokeAgentKey(agent.id, keyId)
      if (!k) throw new BaseError('NOT_FOUND', `no key ${keyId} on agent ${id}`)
      return agentKeyView(k)
    },
  }
}

export type DashboardService = ReturnType<typeof dashboardService>

export function partnerKeyView(k: PartnerKey): PartnerKeyView {
  return {
    id: k.id,
    name: k.name,
    description: k.description,
    masked: k.hint,
    state: k.state === 'deactivated' ? 'deactivated' : 'active',
    createdAt: iso(k.createdAt),
    lastUsedAt: k.lastUsedAt === null ? null : iso(k.lastUsedAt),
  }
}

const userKeyView = (k: UserKeyRow) => ({
  id: k.id,
  masked: k.hint,
  createdAt: iso(k.created_at),
  revokedAt: k.revoked_at === null ? null : iso(k.revoked_at),
})
