import { randomBytes } from 'node:crypto'
import type { Context } from 'hono'
import type { Logger } from 'pino'
import type { Address, Hex } from 'viem'
import type { ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import type { Agent } from '../../src/sdk/platform/agents.js'
import { KEY_HEADER, platformKeyKind } from '../../src/sdk/platform/keys.js'
import { agentNetworks } from '../../src/sdk/platform/networks.js'
import type { SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { AaRuntime } from '../buyer/aa/runtime.js'
import type { ChannelSettings } from '../buyer/batch-settlement/pay.js'
import type { QuotaSettings } from '../buyer/quotas.js'
import { type BuyerService, buyerService } from '../buyer/service.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { type Egress, egressGuard } from '../egress/guard.js'
import { acceptMppSecrets } from '../seller/paid-mpp.js'
import { type SellerService, sellerService } from '../seller/service.js'
import type { Store } from '../store/store.js'
import type { SwapDeps } from '../swap/deps.js'
import { type ResealReport, resealAll } from './reseal.js'
import { type AgentKeyRow, type AgentRow, type PlatformStore, platformStore, type UserRow } from './store.js'
import { mppSecrets, walletSeal } from './wallet-seal.js'

/** Who called: a user (its key) or an agent (its key). */
export type Caller = { kind: 'user'; userId: string } | { kind: 'agent'; agentId: string }

/**
 * What both sides share: users and their keys, agents and theirs, who is calling, the deployment's chains and its one
 * way out.
 */
export type PlatformCore = {
  profile: ParxConfig['profile']
  version: string
  store: PlatformStore
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
  /** FORBIDDEN unless the caller is a user; returns its id. */
  userOf(caller: Caller): string
  /** Users: created with their first key (local profile), and read with what they own. */
  users: {
    create(body: { wallet?: Address; name?: string }): Promise<{ user: UserRow; userKey: string }>
    get(userId: string): Promise<{ user: UserRow; agents: number; endpoints: number }>
  }
  /**
   * A user's agents: created (checked against the deployment, the quotas and the user's default policy) and listed as
   * the owner sees them.
   */
  agents: {
    create(userId: string, body: { name: string; network: string }): Promise<Agent>
    list(userId: string): Promise<Agent[]>
  }
  /** An agent's keys: created within the quota, listed, revoked (NOT_FOUND for a key not on that agent). */
  keys: {
    create(agentId: string, label?: string): Promise<{ key: AgentKeyRow; agentKey: string }>
    list(agentId: string): Promise<AgentKeyRow[]>
    revoke(agentId: string, keyId: string): Promise<AgentKeyRow>
  }
  /** The one guarded way out for user-directed requests: pay, upstreams, webhooks (daemon/egress/). */
  egress: Egress
  /**
   * Unfreezing takes a dashboard sign-in: the user-key routes refuse it (config `platform.unfreezeRequiresDashboard`).
   */
  unfreezeRequiresDashboard: boolean
  /**
   * Re-seals every agent wallet and webhook secret under the current platform key (`parx keys reseal`, ./reseal.ts).
   */
  reseal(): Promise<ResealReport>
  log: Logger
}

/**
 * The platform's surface (daemon/services.ts): the shared part, the buyer's side (daemon/buyer/) and the seller's
 * (daemon/seller/).
 */
export type PlatformService = PlatformCore & BuyerService & SellerService

/**
 * What a platform route gets (daemon/http/route.ts): operations, never the rows, the ledger, the
 * chains or the logger themselves; the daemon's own parts (worker, dashboard, metrics) keep those.
 */
export type PlatformOperations = Omit<PlatformService, 'store' | 'spends' | 'evm' | 'log'>

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
  /**
   * The receipt key (config `keys.receipt` / PARX_RECEIPT_KEY; the local keys file); without it pays carry no signed
   * receipt.
   */
  receiptKey?: Hex
  /** Config `platform.approvalTtlSeconds`: how long an approval may wait and be used (default 900). */
  approvalTtlSeconds?: number
  /** Config `platform.paidUpstreamTimeoutMs`: how long a paid endpoint's upstream may take (default 20 s). */
  paidUpstreamTimeoutMs?: number
  log: Logger
}

/**
 * The composition: the shared part, then the seller's side (its webhooks tell of approvals and alerts too), then the
 * buyer's.
 */
export function platformService(p: PlatformServiceParameters): PlatformService {
  const seal = p.walletKey ? walletSeal(p.walletKey, p.previousWalletKeys) : undefined
  const store = platformStore(p.store, seal)
  const egress = p.egress ?? egressGuard({ strict: p.profile !== 'local' })
  const tokenAddress = (network: string, symbol: string) => p.evm[network]?.tokens[symbol]?.address ?? null
  const lookup = async (c: Context, kind: 'user' | 'agent'): Promise<Caller | undefined> => {
    const key = c.req.header(KEY_HEADER[kind])
    if (key === undefined) return undefined
    if (platformKeyKind(key.trim()) !== kind)
      throw unauthorized(`the ${KEY_HEADER[kind]} header does not hold a ${kind} key (parx-${kind[0]}-<64 hex>)`)
    const owner = await store.keyOwner(key.trim(), kind)
    if (!owner) throw unauthorized(`unknown or revoked ${kind} key in ${KEY_HEADER[kind]}`)
    return owner.kind === 'user' ? { kind: 'user', userId: owner.userId } : { kind: 'agent', agentId: owner.agentId }
  }
  const seller = sellerService({
    facilitatorUrl: p.facilitatorUrl,
    paidFacilitator: p.paidFacilitator,
    batchReceiverAuthorizer: p.batchReceiverAuthorizer,
    mppSecret: issuingMppSecret(p.walletKey, p.previousWalletKeys),
    paidUpstreamTimeoutMs: p.paidUpstreamTimeoutMs,
    store: p.store,
    platform: store,
    seal,
    evm: p.evm,
    egress,
    platformUrl: p.platformUrl,
    log: p.log,
  })
  const buyer = buyerService({
    profile: p.profile,
    store: p.store,
    platform: store,
    evm: p.evm,
    tokenAddress,
    endpoints: seller.endpoints,
    webhooks: seller.webhooks,
    egress,
    aa: p.aa,
    swap: p.swap,
    topUpFees: p.topUpFees,
    quotas: p.quotas,
    payValiditySeconds: p.payValiditySeconds,
    preferAuthCapture: p.preferAuthCapture,
    channelSettings: p.channelSettings,
    receiptKey: p.receiptKey,
    approvalTtlSeconds: p.approvalTtlSeconds,
    log: p.log,
  })
  const canCreateAgents = p.walletKey !== undefined
  const agentNetworkKeys = agentNetworks().map((n) => n.key)
  const core: PlatformCore = {
    profile: p.profile,
    version: p.version,
    store,
    evm: p.evm,
    tokenAddress,
    agentNetworks: agentNetworkKeys,
    canCreateAgents,
    async caller(c, want) {
      const user = await lookup(c, 'user')
      const agent = user ? undefined : await lookup(c, 'agent')
      const who = user ?? agent
      if (!who)
        throw unauthorized(
          `send a ${
            want === 'agent'
              ? 'agent key in x-agent-key'
              : want === 'user'
                ? 'user key in x-user-key'
                : 'user key in x-user-key or an agent key in x-agent-key'
          }`,
        )
      if (want === 'user' && who.kind !== 'user')
        throw new BaseError('FORBIDDEN', 'this route takes a user key (x-user-key); an agent key cannot call it')
      if (want === 'agent' && who.kind !== 'agent')
        throw new BaseError(
          'FORBIDDEN',
          'this route takes an agent key (x-agent-key); use GET /api/agents/:id with a user key',
        )
      return who
    },
    async ownedAgent(caller, id) {
      const a = await store.agent(id)
      const mine = a && (caller.kind === 'user' ? a.user_id === caller.userId : a.id === caller.agentId)
      if (!a || !mine) throw new BaseError('NOT_FOUND', `no agent ${id} for this key`)
      return a
    },
    userOf(caller) {
      if (caller.kind !== 'user')
        throw new BaseError('FORBIDDEN', "only the owning user's key (x-user-key) may do this; an agent key cannot")
      return caller.userId
    },
    users: {
      async create(body) {
        if (body.wallet && (await store.userByWallet(body.wallet)))
          throw new BaseError('ALREADY_EXISTS', `a user is already bound to ${body.wallet}`)
        return store.createUser(body)
      },
      async get(userId) {
        return {
          user: (await store.user(userId))!,
          agents: await store.countAgents(userId),
          endpoints: await seller.endpoints.count(userId),
        }
      },
    },
    agents: {
      async create(userId, body) {
        if (!p.evm[body.network]) {
          throw new BaseError(
            'NETWORK_UNSUPPORTED',
            `${body.network} is not served by this deployment (profile ${p.profile}); use one of ${Object.keys(p.evm)
              .filter((k) => agentNetworkKeys.includes(k))
              .join(', ')}`,
          )
        }
        if (!canCreateAgents) {
          throw new BaseError(
            'FLOW_DISABLED',
            'agents cannot be created: the platform wallet key is not configured ' +
              '(set keys.platformWallet or PARX_PLATFORM_WALLET_KEY to 32 bytes of hex)',
          )
        }
        await buyer.quotas.agent(userId)
        // The user's default policy is copied in at creation (a later change of the default leaves this
        // agent as it is); its limits, where set, take the place of the deployment's new-agent limits.
        const d = await buyer.policies.defaultPolicy(userId)
        const limits = {
          ...buyer.newAgentLimits,
          perPaymentUsd: d.perPaymentUsd ?? buyer.newAgentLimits.perPaymentUsd ?? null,
          dailyUsd: d.dailyUsd ?? buyer.newAgentLimits.dailyUsd ?? null,
        }
        const created = await store.createAgent({ userId, name: body.name, network: body.network, limits })
        await buyer.policies.copyDefault(created.id, d)
        return buyer.agentView((await store.agent(created.id))!)
      },
      list: async (userId) => Promise.all((await store.agents(userId)).map(buyer.agentView)),
    },
    keys: {
      async create(agentId, label) {
        await buyer.quotas.agentKey(agentId)
        return store.createAgentKey(agentId, label)
      },
      list: (agentId) => store.agentKeys(agentId),
      async revoke(agentId, keyId) {
        const key = await store.revokeAgentKey(agentId, keyId)
        if (!key) throw new BaseError('NOT_FOUND', `no key ${keyId} on agent ${agentId}`)
        return key
      },
    },
    egress,
    unfreezeRequiresDashboard: p.unfreezeRequiresDashboard ?? false,
    async reseal() {
      if (!seal)
        throw new BaseError(
          'FLOW_DISABLED',
          'nothing to re-seal: the platform wallet key is not ' +
            'configured (keys.platformWallet / PARX_PLATFORM_WALLET_KEY)',
        )
      return resealAll(p.store, seal)
    },
    log: p.log,
  }
  return { ...core, ...seller, ...buyer }
}

function unauthorized(message: string): BaseError {
  return new BaseError('UNAUTHORIZED', message, {
    details: 'Create a user key with `parx user create` and agent keys with `parx agents keys create`.',
  })
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
