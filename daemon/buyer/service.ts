import type { Logger } from 'pino'
import { type Address, erc20Abi, getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { networks } from '../../src/networks/registry.js'
import type { Agent } from '../../src/sdk/platform/agents.js'
import type { ChannelList, ChannelRefund, ChannelWithdraw } from '../../src/sdk/platform/channels.js'
import type { PaymentsPage, Report } from '../../src/sdk/platform/history.js'
import type { Limits, UserLimits } from '../../src/sdk/platform/limits.js'
import { sendableTokens } from '../../src/sdk/platform/networks.js'
import type { PayAnswer } from '../../src/sdk/platform/pay.js'
import type { Balance, SendResult, SwapResult } from '../../src/sdk/platform/wallet.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Egress } from '../egress/guard.js'
import { egressRefusal } from '../egress/guard.js'
import type { AgentRow, PlatformStore } from '../platform/store.js'
import { agentView, limitsView, userLimitsView } from '../platform/views.js'
import type { EndpointStore } from '../seller/endpoints.js'
import type { SettlementWebhooks } from '../seller/webhooks/service.js'
import type { Store } from '../store/store.js'
import type { SwapDeps } from '../swap/deps.js'
import type { AaRuntime } from './aa/runtime.js'
import { type Alerts, alertsService } from './alerts/service.js'
import { APPROVAL_TTL_SECONDS, type ApprovalGateDeps } from './approvals/gate.js'
import { type ApprovalRow, type ApprovalStore, approvalStore } from './approvals/store.js'
import { approvalRequestedEvents } from './approvals/webhook.js'
import { CHANNEL_DEFAULTS, type ChannelSettings } from './batch-settlement/pay.js'
import { channelView, decimalsOf, refundChannel } from './batch-settlement/refund.js'
import { channelStore } from './batch-settlement/store.js'
import { withdrawChannel } from './batch-settlement/withdraw.js'
import type { Budget } from './budgets.js'
import { reclaimHold } from './holds/reclaim.js'
import { type AgentHoldRow, type AgentHoldStore, agentHoldStore } from './holds/store.js'
import type { LimitPolicy } from './limits.js'
import { type PayRequest, payForAgent } from './pay/index.js'
import { type PaymentsQueryParsed, paymentsPage, type SpendFilter, spendReport } from './payments.js'
import { type PolicyStore, policyStore } from './policy/store.js'
import { newAgentLimits, type QuotaSettings, type UserQuotas, userQuotas } from './quotas.js'
import { receiptIssuer } from './receipts/issue.js'
import { type ReceiptStore, receiptStore } from './receipts/store.js'
import { callFromAgent, sendFromAgent } from './send.js'
import { type SpendsLedger, spendsLedger } from './spends.js'
import { swapForAgent } from './swap.js'

/**
 * The buyer's side of the platform: agents spending (pay, channels, send, swap), and the limits, rules, approvals and
 * alerts around it.
 */
export type BuyerService = {
  spends: SpendsLedger
  /** Payee and network rules of agents and users, and users' defaults for new agents (./policy/). */
  policies: PolicyStore
  /** Pays and sends above an agent's approveAboveUsd, held for the owner (./approvals/). */
  approvals: ApprovalStore
  /** Users' alert rules, their evaluation around each pay, send and swap, and the alerts fired (./alerts/). */
  alerts: Alerts
  /** An agent's spends as its owner reads them: keyset pages, and totals over a window (./payments.ts). */
  history: {
    page(agentId: string, q: PaymentsQueryParsed): Promise<PaymentsPage>
    report(agentId: string, q: SpendFilter): Promise<Omit<Report, 'agentId' | 'limits'>>
  }
  /** Sends from the agent's wallet (./send.ts). */
  send(agent: AgentRow, body: { to: Address; amount: string; token: string; approvalId?: string }): Promise<SendResult>
  balance(agent: AgentRow): Promise<Balance>
  /** Pays a 402-gated URL (./pay/). */
  pay(agent: AgentRow, req: PayRequest): Promise<PayAnswer>
  /** The agent's x402 batch-settlement channels: list, and the cooperative refund of one (./batch-settlement/). */
  channels: {
    list(agent: AgentRow): Promise<ChannelList>
    refund(agent: AgentRow, channelId: string): Promise<ChannelRefund>
    withdraw(agent: AgentRow, channelId: string): Promise<ChannelWithdraw>
  }
  /**
   * Signed receipts of settled pays (./receipts/): the signer the manifest publishes (null without a receipt key), and
   * the stored receipts.
   */
  receipts: { signer: Address | null; store: ReceiptStore }
  /** Swaps through our own swap service (./swap.ts). */
  swap(agent: AgentRow, body: { from: string; to: string; amount: string }): Promise<SwapResult>
  /** Agents' own auth-capture holds (./holds/), refreshed from the chain by the leader. */
  agentHolds: AgentHoldStore
  /**
   * Reclaims an agent's hold left uncaptured past its capture deadline, from the agent's own account
   * (./holds/reclaim.ts); null when nothing is reclaimable.
   */
  reclaimHold(h: AgentHoldRow): Promise<Hex | null>
  /** ERC-4337 stacks by AA network (tests stop a bundler through it). */
  aa: Record<string, AaRuntime>
  /** Per-user bounds on what a user creates and on its pay calls in flight (./quotas.ts). */
  quotas: UserQuotas
  /** The limits a new agent starts with (none on the local profile unless configured). */
  newAgentLimits: Pick<LimitPolicy, 'perPaymentUsd' | 'dailyUsd'>
  /** An agent as its owner sees it: its row with what counts against its limits now. */
  agentView(agent: AgentRow): Promise<Agent>
  /** An agent's and a user's limits, read and set (the owner's routes; logged). */
  limits: {
    get(agent: AgentRow): Promise<Limits>
    set(agent: AgentRow, patch: Partial<LimitPolicy> & { approveAboveUsd?: string | null }): Promise<Limits>
    user(userId: string): Promise<UserLimits>
    setUser(userId: string, patch: Partial<Budget>): Promise<UserLimits>
  }
  /** Freezes or unfreezes one agent or all of a user's agents (./freeze.ts; logged): the agents as they are now. */
  freeze: {
    agent(agentId: string, frozen: boolean): Promise<Agent>
    all(userId: string, frozen: boolean): Promise<Agent[]>
  }
  /** The owner's changes to rules, approvals and alert rules, each logged as the owner made it. */
  owner: {
    setAgentRules(agent: AgentRow, rules: Parameters<PolicyStore['setAgentRules']>[1]): Promise<AgentRow>
    setUserRules(userId: string, rules: Parameters<PolicyStore['setUserRules']>[1]): Promise<void>
    setDefaultPolicy(userId: string, policy: Parameters<PolicyStore['setDefaultPolicy']>[1]): Promise<void>
    decide(approvalId: string, userId: string, verdict: 'approved' | 'denied'): Promise<ApprovalRow>
    addAlertRule(userId: string, body: Parameters<Alerts['add']>[1]): Promise<Awaited<ReturnType<Alerts['add']>>>
  }
}

export type BuyerServiceParameters = {
  profile: ParxConfig['profile']
  store: Store
  /** Users, agents, their keys and sealed wallets. */
  platform: PlatformStore
  evm: Record<string, EvmChain>
  tokenAddress(network: string, symbol: string): string | null
  /** The seller's side, which carries the webhooks an approval request and an alert are told through. */
  endpoints: EndpointStore
  webhooks: SettlementWebhooks
  egress: Egress
  aa: Record<string, AaRuntime>
  swap: SwapDeps
  topUpFees: Record<string, (address: Address) => Promise<void>>
  quotas?: Partial<QuotaSettings>
  payValiditySeconds?: number
  preferAuthCapture?: boolean
  channelSettings?: ChannelSettings
  receiptKey?: Hex
  approvalTtlSeconds?: number
  log: Logger
}

export function buyerService(p: BuyerServiceParameters): BuyerService {
  const store = p.platform
  const quotas = userQuotas(p.store, p.quotas)
  const spends = spendsLedger(p.store)
  const policies = policyStore(p.store)
  const agentHolds = agentHoldStore(p.store)
  const channels = channelStore(p.store)
  const channelSettings = p.channelSettings ?? CHANNEL_DEFAULTS
  const receipts = receiptStore(p.store)
  const issuer = p.receiptKey ? receiptIssuer({ key: p.receiptKey, store: receipts, log: p.log }) : undefined
  const approvals = approvalStore(p.store)
  const { endpoints, webhooks, egress } = p
  const approvalGate: ApprovalGateDeps = {
    approvals,
    ttlSeconds: p.approvalTtlSeconds ?? APPROVAL_TTL_SECONDS,
    // Queued in the store before the agent hears APPROVAL_REQUIRED; delivered like settlement webhooks.
    async onRequested(row) {
      const events = approvalRequestedEvents(row, await endpoints.list(row.user_id))
      for (const e of events) await webhooks.queue.enqueue(e)
      if (events.length) void webhooks.delivery.poke()
    },
  }
  const alerts = alertsService({ store: p.store, endpoints, delivery: webhooks.delivery, log: p.log })
  const chainOf = (agent: AgentRow) => {
    const chain = p.evm[agent.network]
    if (!chain) throw new BaseError('CHAIN_UNAVAILABLE', `${agent.network} is not served by this deployment now`)
    return chain
  }
  /** What a transaction or user operation from the agent's wallet needs: send, channel withdraw, hold reclaim. */
  const agentSender = (agent: AgentRow) => ({
    chain: chainOf(agent),
    walletKey: (a: AgentRow) => store.walletKey(a),
    aa: p.aa[agent.network],
    topUpFees: p.topUpFees[agent.network],
  })
  const view = async (a: AgentRow) => agentView(a, await spends.budget(a.id), p.tokenAddress)
  return {
    spends,
    policies,
    approvals,
    alerts,
    history: {
      page: (agentId, q) => paymentsPage(p.store, agentId, q),
      report: (agentId, q) => spendReport(p.store, agentId, q),
    },
    send: (agent, body) =>
      alerts.watch(agent, async () =>
        sendFromAgent(
          {
            ...agentSender(agent),
            spends,
            rules: await policies.scoped(agent),
            approvals: approvalGate,
          },
          agent,
          body,
        ),
      ),
    pay: (agent, req) =>
      quotas.pay(agent.user_id, () =>
        alerts.watch(agent, async () =>
          payForAgent(
            {
              chain: chainOf(agent),
              spends,
              walletKey: (a) => store.walletKey(a),
              maxValiditySeconds: p.payValiditySeconds,
              fetch: egress.fetch,
              channels: { store: channels, settings: channelSettings },
              preferAuthCapture: p.preferAuthCapture,
              holds: agentHolds,
              receipts: issuer,
              rules: await policies.scoped(agent),
              approvals: approvalGate,
            },
            agent,
            req,
          ),
        ),
      ),
    receipts: { signer: issuer?.signer ?? null, store: receipts },
    channels: {
      async list(agent) {
        const chain = chainOf(agent)
        return { channels: (await channels.list(agent.id)).map((r) => channelView(r, decimalsOf(chain, r.token))) }
      },
      refund: (agent, channelId) =>
        refundChannel(
          {
            chain: chainOf(agent),
            spends,
            channels,
            agent,
            signer: privateKeyToAccount(store.walletKey(agent)),
            timeoutMs: 30_000,
            get: (url, headers) =>
              egress
                .fetch(url, { method: 'GET', headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) })
                .catch((e) => {
                  throw (
                    egressRefusal(e) ??
                    new BaseError(
                      'SELLER_FAILED',
                      `the seller at ${url} could not be reached (${(e as Error).message}); nothing moved`,
                      { cause: e },
                    )
                  )
                }),
          },
          channelId,
        ),
      withdraw: (agent, channelId) =>
        withdrawChannel(
          {
            chain: chainOf(agent),
            channels,
            agent,
            call: (to, data) => callFromAgent(agentSender(agent), agent, { to, data }, () => {}, 'nothing moved'),
          },
          channelId,
        ),
    },
    quotas,
    newAgentLimits: newAgentLimits(p.profile, p.quotas ?? {}),
    agentHolds,
    async reclaimHold(h) {
      const agent = await store.agent(h.agent_id)
      if (!agent) return null
      const chain = chainOf(agent)
      return reclaimHold({
        chain,
        hold: h,
        payer: getAddress(agent.address),
        call: (to, data) => callFromAgent(agentSender(agent), agent, { to, data }, () => {}, 'nothing was reclaimed'),
      })
    },
    aa: p.aa,
    swap: (agent, body) =>
      alerts.watch(agent, async () =>
        swapForAgent(
          { swap: p.swap, spends, walletKey: (a) => store.walletKey(a), rules: await policies.scoped(agent) },
          agent,
          body,
        ),
      ),
    async balance(agent) {
      const chain = chainOf(agent)
      const wallet = getAddress(agent.address)
      try {
        const tokens = await Promise.all(
          sendableTokens(networks[agent.network]!)
            .filter((t) => chain.tokens[t.symbol])
            .map(async (t) => {
              const raw = await chain.client.readContract({
                address: chain.tokens[t.symbol]!.address,
                abi: erc20Abi,
                functionName: 'balanceOf',
                args: [wallet],
              })
              return {
                symbol: t.symbol,
                decimals: t.decimals,
                amount: fromBaseUnits(raw, t.decimals),
                raw: raw.toString(),
              }
            }),
        )
        const native = await chain.client.getBalance({ address: wallet })
        return {
          agentId: agent.id,
          network: agent.network,
          wallet,
          tokens,
          native: { symbol: 'ETH', amount: fromBaseUnits(native, 18), raw: native.toString() },
        }
      } catch (e) {
        throw new BaseError(
          'CHAIN_UNAVAILABLE',
          `${agent.network} did not answer (${(e as Error).message.split('\n')[0]}); retry shortly`,
          { cause: e },
        )
      }
    },
    agentView: view,
    limits: {
      get: async (agent) => limitsView(agent, await spends.budget(agent.id)),
      async set(agent, patch) {
        const updated = await store.setLimits(agent.id, patch)
        return limitsView(updated, await spends.budget(agent.id))
      },
      user: async (userId) => userLimitsView((await store.user(userId))!, await spends.userSpent(userId)),
      async setUser(userId, patch) {
        const updated = await store.setUserLimits(userId, patch)
        p.log.info({ user: userId }, 'user limits set')
        return userLimitsView(updated, await spends.userSpent(userId))
      },
    },
    freeze: {
      async agent(agentId, frozen) {
        const [row] = await store.setFrozen({ agentId }, frozen)
        p.log.info({ agent: agentId }, frozen ? 'agent frozen' : 'agent unfrozen')
        return view(row!)
      },
      async all(userId, frozen) {
        const rows = await store.setFrozen({ userId }, frozen)
        p.log.info(
          { user: userId, agents: rows.length },
          frozen ? 'all agents of the user frozen' : 'all agents of the user unfrozen',
        )
        return Promise.all(rows.map(view))
      },
    },
    owner: {
      async setAgentRules(agent, rules) {
        await policies.setAgentRules(agent, rules)
        p.log.info({ agent: agent.id }, 'agent policy set')
        return (await store.agent(agent.id))!
      },
      async setUserRules(userId, rules) {
        await policies.setUserRules(userId, rules)
        p.log.info({ user: userId }, 'user policy set')
      },
      async setDefaultPolicy(userId, policy) {
        await policies.setDefaultPolicy(userId, policy)
        p.log.info({ user: userId }, 'default agent policy set')
      },
      async decide(approvalId, userId, verdict) {
        const row = await approvals.decide(approvalId, userId, verdict)
        p.log.info({ approval: row.id, agent: row.agent_id }, `approval ${verdict}`)
        return row
      },
      async addAlertRule(userId, body) {
        const row = await alerts.add(userId, body)
        p.log.info({ rule: row.id, kind: row.kind, agent: row.agent_id }, 'alert rule added')
        return row
      },
    },
  }
}
