import type { Logger } from 'pino'
import type { Address } from 'viem'
import type { ResolvedConfig } from '../src/config/load.js'
import type { FlowName } from '../src/config/schema.js'
import type { PartnerKeyStore } from './auth/partner-keys.js'
import type { VerdictCache } from './auth/verdict-cache.js'
import type { EvmChain } from './chains/evm/chain.js'
import type { FreshCache } from './chains/evm/fresh-cache.js'
import type { TxSender } from './chains/evm/tx-sender.js'
import type { SolanaChain } from './chains/solana/chain.js'
import type { Facilitator } from './facilitator/service.js'
import type { ServiceKeys } from './keys/service-keys.js'
import type { SolDeps } from './sol/deps.js'
import type { InflightOrders } from './swap/inflight.js'
import type { Store } from './store/store.js'

export type DaemonUrls = {
  api: string
  facilitator: string
  platform: string
  dashboard: string
  rpc: Record<string, string>
}

/** Mints test money; present on the local profile only. */
export type Faucet = {
  mint(p: { network: string; to: string; token: string; amount: string }): Promise<{ tx: string }>
}

/** Everything a route or the worker may use, built once by the composition root (daemon/main.ts). */
export type Services = {
  config: Readonly<ResolvedConfig>
  log: Logger
  store: Store
  keys: ServiceKeys
  partnerKeys: PartnerKeyStore
  verdicts: VerdictCache
  /** EVM networks of the profile by key; `base` and `radius` are the ones playing those roles. */
  evm: Record<string, EvmChain>
  base: EvmChain
  radius: EvmChain
  solana: SolanaChain
  urls: DaemonUrls
  flowEnabled(flow: FlowName): boolean
  /** Public addresses of the service's own accounts. */
  accounts: { solver: Address; facilitator: Address; solanaSolver: string; solanaFacilitator: string }
  /** The one transaction sender per (EVM network, service key): nonces never collide across routes. */
  sender(network: string, role: 'solver' | 'facilitator'): TxSender
  /** Short-lived chain reads shared by concurrent requests (inventory, balances). */
  reads: FreshCache
  faucet?: Faucet
  startedAt: number
  /** Domain services the composition root builds once over the rest of this bag. */
  facilitator: Facilitator
  sol: SolDeps
  /** Base orders being relayed, so a second submission of one is refused while the first may land. */
  swapInflight: InflightOrders
}
