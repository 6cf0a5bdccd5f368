import { randomBytes } from 'node:crypto'
import type { Context } from 'hono'
import type { ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { KEY_HEADER, platformKeyKind } from '../../src/sdk/platform/keys.js'
import { agentNetworks, sendableTokens } from '../../src/sdk/platform/networks.js'
import type { Balance, SendResult, SwapResult } from '../../src/sdk/platform/wallet.js'
import type { SwapDeps } from '../swap/deps.js'
import { swapForAgent } from '../buyer/swap.js'
import { endpointStore, paidUrl, type EndpointStore } from '../seller/endpoints.js'
import { payForAgent, type PayRequest } from '../buyer/pay/index.js'
import { agentHoldStore, type AgentHoldRow, type AgentHoldStore } from '../buyer/holds/store.js'
import { reclaimHold } from '../buyer/holds/reclaim.js'
import type { PayAnswer } from '../../src/sdk/platform/pay.js'
import { networks } from '../../src/networks/registry.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import { erc20Abi, getAddress, type Address, type Hex } from 'viem'
import type { AaRuntime } from '../buyer/aa/runtime.js'
import { callFromAgent, sendFromAgent } from '../buyer/send.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Store } from '../store/store.js'
import { spendsLedger, type SpendsLedger } from '../buyer/spends.js'
import { policyStore, type PolicyStore } from '../buyer/policy/store.js'
import { paymentsPage, spendReport, type PaymentsQueryParsed, type SpendFilter } from '../buyer/payments.js'
import type { PaymentsPage, Report } from '../../src/sdk/platform/history.js'
import { platformStore, type AgentRow, type PlatformStore } from './store.js'
import { mppSecrets, walletSeal } from './wallet-seal.js'
import { resealAll, type ResealReport } from './reseal.js'
import { acceptMppSecrets } from '../seller/paid-mpp.js'
import type { Logger } from 'pino'
import { settlementWebhooks, type SettlementWebhooks } from '../seller/webhooks/service.js'
import { newAgentLimits, userQuotas, type QuotaSettings, type UserQuotas } from '../buyer/quotas.js'
import type { LimitPolicy } from '../buyer/limits.js'
import { sellerChannelStore } from '../seller/batch-settlement/channel-store.js'
import { sellerAnswerStore } from '../seller/answer-store.js'
import type { AnswerStore } from '../../src/sdk/x402/seller/answers/store.js'
import type { ChannelStore } from '../../src/sdk/x402/seller/channels/store.js'
import { egressGuard, egressRefusal, type Egress } from '../egress/guard.js'
import { CHANNEL_DEFAULTS, type ChannelSettings } from '../buyer/batch-settlement/pay.js'
import { channelView, decimalsOf, refundChannel } from '../buyer/batch-settlement/refund.js'
import { withdrawChannel } from '../buyer/batch-settlement/withdraw.js'
import { channelStore } from '../buyer/batch-settlement/store.js'
import type { ChannelList, ChannelRefund, ChannelWithdraw } from '../../src/sdk/platform/channels.js'
import { privateKeyToAccount } from 'viem/accounts'
import { facilitatorClient, type SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { RefundAnswer } from '../../src/sdk/platform/refunds.js'
import { sellerHoldStore } from '../seller/hold-store.js'
import { refundEndpointPayment } from '../seller/endpoint-refund.js'
import { receiptIssuer } from '../buyer/receipts/issue.js'
import { receiptStore, type ReceiptStore } from '../buyer/receipts/store.js'
import { APPROVAL_TTL_SECONDS, type ApprovalGateDeps } from '../buyer/approvals/gate.js'
import { approvalStore, type ApprovalStore } from '../buyer/approvals/store.js'
import { approvalRequestedEvents } from '../buyer/approvals/webhook.js'
import { alertsService, type Alerts } from '../buyer/alerts/service.js'

/** Who called: a user (its key) or an agent (its key). */
export type Caller = { kind: 'user'; userId: string } | { kind: 'agent'; agentId: string }

/** The platform's surface (daemon/services.ts): its rows, its ledger, the chains its agents live on. */
export type PlatformService = {
  profile: ParxConfig['profile']
  version: string
  facilitatorUrl: string
  /** The facilitator in process for a paid endpoint, acting for its payTo (./paid-facilitator.ts); absent: HTTP to facilitatorUrl. */
  paidFacilitator?: (receiver: string | undefined) => SellerFacilitator
  /** The facilitator's batch-settlement receiver authorizer (../facilitator/evm/batch-settlement/authorizer.ts); none: no batch-settlement endpoint is created. */
  batchReceiverAuthorizer?: Address
  /** HMAC key binding the MPP challenges of paid endpoints (HKDF of the platform wallet key; older keys are still accepted). */
  mppSecret: string
  store: PlatformStore
  spends: SpendsLedger
  /** Payee and network rules of agents and users, and users' defaults for new agents (daemon/buyer/policy/). */
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
  /** The EVM chains this deployment serves, by network key. */
  evm: Record<string, EvmChain>
  tokenAddress(network: string, symbol: string): string | null
  /** Agent networks of the registry (AA or direct). */
  agentNetworks: string[]
  /** False when no platform wallet key is configured (a real profile without one). */
  canCreateAgents: boolean
  /** Checks the key headers against what the route takes (user, agent, or either: owner). */
  caller(c: Context, want: 'user' | 'agent' | 'owner'): Promise<Caller>
  /** The agent when the caller may act on it; NOT_FOUND otherwise, exactly as for an id that does not exist. */
  ownedAgent(caller: Caller, id: string): Promise<AgentRow>
  /** Sends from the agent's wallet (daemon/buyer/send.ts). */
  send(agent: AgentRow, body: { to: Address; amount: string; token: string; approvalId?: string }): Promise<SendResult>
  balance(agent: AgentRow): Promise<Balance>
  /** Pays a 402-gated URL (daemon/buyer/pay/index.ts). */
  pay(agent: AgentRow, req: PayRequest): Promise<PayAnswer>
  /** The agent's x402 batch-settlement channels: list, and the cooperative refund of one (daemon/buyer/batch-settlement/). */
  channels: { list(agent: AgentRow): Promise<ChannelList>; refund(agent: AgentRow, channelId: string): Promise<ChannelRefund>; withdraw(agent: AgentRow, channelId: string): Promise<ChannelWithdraw> }
  /** Signed receipts of settled pays (daemon/buyer/receipts/): the signer the manifest publishes (null without a receipt key), and the stored receipts. */
  receipts: { signer: Address | null; store: ReceiptStore }
  /** Swaps through our own swap service (daemon/buyer/swap.ts). */
  swap(agent: AgentRow, body: { from: string; to: string; amount: string }): Promise<SwapResult>
  endpoints: EndpointStore
  /** Batch-settlement channels paying the endpoints, shared by replicas (daemon/seller/batch-settlement/channel-store.ts). */
  sellerChannels: ChannelStore
  /** Paid answers by payment id, so a repeated payment is answered, never refused; shared by replicas (daemon/seller/answer-store.ts). */
  sellerAnswers: AnswerStore
  /** auth-capture holds of the endpoints (paymentInfo, saltNonce, what was captured and refunded), shared by replicas (daemon/seller/hold-store.ts). */
  sellerHolds: HoldStore
  /** Agents' own auth-capture holds (daemon/buyer/holds/), refreshed from the chain by the leader. */
  agentHolds: AgentHoldStore
  /** Reclaims an agent's hold left uncaptured past its capture deadline, from the agent's own account (./holds/reclaim.ts); null when nothing is reclaimable. */
  reclaimHold(h: AgentHoldRow): Promise<Hex | null>
  /** A seller refunds a captured auth-capture payment of one of its endpoints (./endpoint-refund.ts). */
  refundPayment(userId: string, body: { paymentId: string; amount?: string }): Promise<RefundAnswer>
  /** ERC-4337 stacks by AA network (tests stop a bundler through it). */
  aa: Record<string, AaRuntime>
  /** The platform's base URL ({agents_url}), for the paid URLs of endpoints. */
  platformUrl: string
  /** FORBIDDEN unless the caller is a user; returns its id. */
  userOf(caller: Caller): string
  /** Sellers' signed settlement webhooks: secrets, the persisted queue, its delivery (daemon/seller/webhooks/). */
  webhooks: SettlementWebhooks
  /** The one guarded way out for user-directed requests: pay, upstreams, webhooks (daemon/egress/). */
  egress: Egress
  /** Per-user bounds on what a user creates and on its pay calls in flight (daemon/buyer/quotas.ts). */
  quotas: UserQuotas
  /** Unfreezing takes a dashboard sign-in: the user-key routes refuse it (config `platform.unfreezeRequiresDashboard`). */
  unfreezeRequiresDashboard: boolean
  /** The limits a new agent starts with (none on the local profile unless configured). */
  newAgentLimits: Pick<LimitPolicy, 'perPaymentUsd' | 'dailyUsd'>
  /** Re-seals every agent wallet and webhook secret under the current platform key (`parx keys reseal`, ./reseal.ts). */
  reseal(): Promise<ResealReport>
  log: Logger
}

export type PlatformServiceParameters = {
  profile: ParxConfig['profile']
  version: string
  facilitatorUrl: string
  paidFacilitator?: (receiver: string | undefined) => SellerFacilitator
  batchReceiverAuthorizer?: Address
  store: Store
  evm: Record<string, EvmChain>
  /** The platform wallet key (hex, 32 bytes); without it agents cannot be created. */
  walletKey: string | undefined
  /** Platform wallet keys before a rotation (`keys.platformWalletPrevious`): they open, never seal. */
  previousWalletKeys?: string[]
  /** ERC-4337 stacks by AA network (the local profile starts its own on first use). */
  aa: Record<string, AaRuntime>
  platformUrl: string
  /** The Base swap service, called in-process by swap. */
  swap: SwapDeps
  /** Direct networks on the local profile: fee coin top-ups by network. */
  topUpFees: Record<string, (address: Address) => Promise<void>>
  /** Per-user quotas and new agents' limits (config `quotas`); defaults when absent. */
  quotas?: Partial<QuotaSettings>
  /** Outbound guard; default: strict on testnet and mainnet, open on local, no allow-list. */
  egress?: Egress
  /** The longest a payment an agent signs stays valid, seconds (config `pay.validitySeconds`; default 300). */
  payValiditySeconds?: number
  /** Config `pay.preferAuthCapture` (default true): an auth-capture offer before exact. */
  preferAuthCapture?: boolean
  /** Channel deposits of pay through x402 batch-settlement (config `pay.channels`). */
  channelSettings?: ChannelSettings
  /** Config `platform.unfreezeRequiresDashboard` (default false). */
  unfreezeRequiresDashboard?: boolean
  /** The receipt key (config `keys.receipt` / PARX_RECEIPT_KEY; the local keys file); without it pays carry no signed receipt. */
  receiptKey?: Hex
  /** Config `platform.approvalTtlSeconds`: how long an approval may wait and be used (default 900). */
  approvalTtlSeconds?: number
  log: Logger
}

export function platformService(p: PlatformServiceParameters): PlatformService {
  const seal = p.walletKey ? walletSeal(p.walletKey, p.previousWalletKeys) : undefined
  const store = platformStore(p.store, seal)
  const endpoints = endpointStore(p.store)
  const quotas = userQuotas(p.store, p.quotas)
  const egress = p.egress ?? egressGuard({ strict: p.profile !== 'local' })
  const lookup = async (c: Context, kind: 'user' | 'agent'): Promise<Caller | undefined> => {
    const key = c.req.header(KEY_HEADER[kind])
    if (key === undefined) return undefined
    if (platformKeyKind(key.trim()) !== kind) throw unauthorized(`the ${KEY_HEADER[kind]} header does not hold a ${kind} key (parx-${kind[0]}-<64 hex>)`)
    const owner = await store.keyOwner(key.trim(), kind)
    if (!owner) throw unauthorized(`unknown or revoked ${kind} key in ${KEY_HEADER[kind]}`)
    return owner.kind === 'user' ? { kind: 'user', userId: owner.userId } : { kind: 'agent', agentId: owner.agentId }
  }
  const spends = spendsLedger(p.store)
  const policies = policyStore(p.store)
  const agentHolds = agentHoldStore(p.store)
  const sellerHolds = sellerHoldStore(p.store)
  const webhooks = settlementWebhooks({ store: p.store, endpoints, seal, log: p.log, fetch: egress.fetch })
  const channels = channelStore(p.store)
  const channelSettings = p.channelSettings ?? CHANNEL_DEFAULTS
  const receipts = receiptStore(p.store)
  const issuer = p.receiptKey ? receiptIssuer({ key: p.receiptKey, store: receipts, log: p.log }) : undefined
  const approvals = approvalStore(p.store)
  const approvalGate: ApprovalGateDeps = {
    approvals, ttlSeconds: p.approvalTtlSeconds ?? APPROVAL_TTL_SECONDS,
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
  return {
    profile: p.profile,
    version: p.version,
    facilitatorUrl: p.facilitatorUrl,
    paidFacilitator: p.paidFacilitator,
    batchReceiverAuthorizer: p.batchReceiverAuthorizer,
    mppSecret: issuingMppSecret(p.walletKey, p.previousWalletKeys),
    store,
    spends,
    policies,
    approvals,
    alerts,
    history: { page: (agentId, q) => paymentsPage(p.store, agentId, q), report: (agentId, q) => spendReport(p.store, agentId, q) },
    evm: p.evm,
    tokenAddress: (network, symbol) => p.evm[network]?.tokens[symbol]?.address ?? null,
    agentNetworks: agentNetworks().map((n) => n.key),
    canCreateAgents: p.walletKey !== undefined,
    async caller(c, want) {
      const user = await lookup(c, 'user')
      const agent = user ? undefined : await lookup(c, 'agent')
      const who = user ?? agent
      if (!who) throw unauthorized(`send a ${want === 'agent' ? 'agent key in x-agent-key' : want === 'user' ? 'user key in x-user-key' : 'user key in x-user-key or an agent key in x-agent-key'}`)
      if (want === 'user' && who.kind !== 'user') throw new BaseError('FORBIDDEN', 'this route takes a user key (x-user-key); an agent key cannot call it')
      if (want === 'agent' && who.kind !== 'agent') throw new BaseError('FORBIDDEN', 'this route takes an agent key (x-agent-key); use GET /api/agents/:id with a user key')
      return who
    },
    async ownedAgent(caller, id) {
      const a = await store.agent(id)
      const mine = a && (caller.kind === 'user' ? a.user_id === caller.userId : a.id === caller.agentId)
      if (!a || !mine) throw new BaseError('NOT_FOUND', `no agent ${id} for this key`)
      return a
    },
    send: (agent, body) => alerts.watch(agent, async () => sendFromAgent({
      chain: chainOf(agent), spends, walletKey: (a) => store.walletKey(a), aa: p.aa[agent.network], topUpFees: p.topUpFees[agent.network], rules: await policies.scoped(agent), approvals: approvalGate,
    }, agent, body)),
    pay: (agent, req) => quotas.pay(agent.user_id, () => alerts.watch(agent, async () => payForAgent({ chain: chainOf(agent), spends, walletKey: (a) => store.walletKey(a), maxValiditySeconds: p.payValiditySeconds, fetch: egress.fetch, channels: { store: channels, settings: channelSettings }, preferAuthCapture: p.preferAuthCapture, holds: agentHolds, receipts: issuer, rules: await policies.scoped(agent), approvals: approvalGate }, agent, req))),
    receipts: { signer: issuer?.signer ?? null, store: receipts },
    channels: {
      async list(agent) {
        const chain = chainOf(agent)
        return { channels: (await channels.list(agent.id)).map((r) => channelView(r, decimalsOf(chain, r.token))) }
      },
      refund: (agent, channelId) => refundChannel({
        chain: chainOf(agent), spends, channels, agent, signer: privateKeyToAccount(store.walletKey(agent)), timeoutMs: 30_000,
        get: (url, headers) => egress.fetch(url, { method: 'GET', headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) }).catch((e) => {
          throw egressRefusal(e) ?? new BaseError('SELLER_FAILED', `the seller at ${url} could not be reached (${(e as Error).message}); nothing moved`, { cause: e })
        }),
      }, channelId),
      withdraw: (agent, channelId) => withdrawChannel({
        chain: chainOf(agent), channels, agent,
        call: (to, data) => callFromAgent({ chain: chainOf(agent), walletKey: (a) => store.walletKey(a), aa: p.aa[agent.network], topUpFees: p.topUpFees[agent.network] }, agent, { to, data }, () => {}, 'nothing moved'),
      }, channelId),
    },
    quotas,
    unfreezeRequiresDashboard: p.unfreezeRequiresDashboard ?? false,
    newAgentLimits: newAgentLimits(p.profile, p.quotas ?? {}),
    endpoints,
    sellerChannels: sellerChannelStore(p.store),
    sellerAnswers: sellerAnswerStore(p.store),
    sellerHolds,
    agentHolds,
    async reclaimHold(h) {
      const agent = await store.agent(h.agent_id)
      if (!agent) return null
      const chain = chainOf(agent)
      return reclaimHold({
        chain, hold: h, payer: getAddress(agent.address),
        call: (to, data) => callFromAgent({ chain, walletKey: (a) => store.walletKey(a), aa: p.aa[agent.network], topUpFees: p.topUpFees[agent.network] }, agent, { to, data }, () => {}, 'nothing was reclaimed'),
      })
    },
    refundPayment: (userId, body) => refundEndpointPayment({
      endpoints, holds: sellerHolds, evm: p.evm, agent: (id) => store.agent(id), walletKey: (a) => store.walletKey(a),
      facilitatorFor: (payTo) => p.paidFacilitator?.(payTo) ?? facilitatorClient({ url: p.facilitatorUrl }),
      // The refund's webhook (payment.refunded), queued before the seller hears back.
      onRefunded: ({ endpoint, hold, result }) => webhooks.record({ endpoint, paidUrl: paidUrl(p.platformUrl, endpoint.id), payment: { paymentId: hold.id, refunded: hold.refunded }, protocol: 'x402', result }),
    }, userId, body),
    webhooks,
    egress,
    async reseal() {
      if (!seal) throw new BaseError('FLOW_DISABLED', 'nothing to re-seal: the platform wallet key is not configured (keys.platformWallet / PARX_PLATFORM_WALLET_KEY)')
      return resealAll(p.store, seal)
    },
    log: p.log,
    aa: p.aa,
    platformUrl: p.platformUrl,
    swap: (agent, body) => alerts.watch(agent, async () => swapForAgent({ swap: p.swap, spends, walletKey: (a) => store.walletKey(a), rules: await policies.scoped(agent) }, agent, body)),
    async balance(agent) {
      const chain = chainOf(agent)
      const wallet = getAddress(agent.address)
      try {
        const tokens = await Promise.all(sendableTokens(networks[agent.network]!).filter((t) => chain.tokens[t.symbol]).map(async (t) => {
          const raw = await chain.client.readContract({ address: chain.tokens[t.symbol]!.address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })
          return { symbol: t.symbol, decimals: t.decimals, amount: fromBaseUnits(raw, t.decimals), raw: raw.toString() }
        }))
        const native = await chain.client.getBalance({ address: wallet })
        return { agentId: agent.id, network: agent.network, wallet, tokens, native: { symbol: 'ETH', amount: fromBaseUnits(native, 18), raw: native.toString() } }
      } catch (e) {
        throw new BaseError('CHAIN_UNAVAILABLE', `${agent.network} did not answer (${(e as Error).message.split('\n')[0]}); retry shortly`, { cause: e })
      }
    },
    userOf(caller) {
      if (caller.kind !== 'user') throw new BaseError('FORBIDDEN', "only the owning user's key (x-user-key) may do this; an agent key cannot")
      return caller.userId
    },
  }
}

function unauthorized(message: string): BaseError {
  return new BaseError('UNAUTHORIZED', message, { details: 'Create a user key with `parx user create` and agent keys with `parx agents keys create`.' })
}

/**
 * Derived, so every replica and every restart issues and accepts the same challenges; challenges
 * issued under the older derivations stay valid (daemon/seller/paid-mpp.ts). Without a wallet
 * key (no agents either) a per-process key: challenges then live as long as the process.
 */
function issuingMppSecret(walletKey: string | undefined, previous: string[] = []): string {
  if (!walletKey) return randomBytes(32).toString('hex')
  const [issuing, ...older] = mppSecrets(walletKey, previous)
  acceptMppSecrets(issuing!, older)
  return issuing!
}
