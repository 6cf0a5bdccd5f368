import type { Logger } from 'pino'
import type { Address, Hex } from 'viem'
import type { ParxConfig } from '../../src/config/schema.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { TxSender } from '../chains/evm/tx-sender.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import type { FacilitatorRecorder } from '../metrics/facilitator.js'
import type { Store } from '../store/store.js'
import type { VerifiedCache } from './verified-cache.js'

/** What the x402 facilitator is built from (daemon/main.ts). Its signing keys stay inside it. */
export type FacilitatorDeps = {
  profile: ParxConfig['profile']
  /** EVM networks of the profile by key. */
  evm: Record<string, EvmChain>
  solana: SolanaChain
  log: Logger
  /** The settlement ledger lives here (x402_settlements). */
  store: Store
  /** Public addresses of the facilitator's accounts (what /supported names as signers). */
  accounts: { facilitator: Address; solanaFacilitator: string }
  /** `batchReceiverAuthorizer`: config `keys.batchReceiverAuthorizer` (./evm/batch-settlement/authorizer.ts). */
  keys: { facilitator: Hex; solanaFacilitator: Uint8Array; batchReceiverAuthorizer?: Hex }
  /** The facilitator key's transaction sender on an EVM network (port: this process's nonces). */
  sender(network: string): TxSender
  /**
   * ERC-6492 factories a counterfactual smart-wallet payer may be deployed with (config
   * `facilitator.eip6492Factories`).
   */
  eip6492Factories?: Address[]
  /** Payments verified a moment ago (port: this process's memory); default a fresh one. */
  verified?: VerifiedCache
  /** Extensions served beside the facilitator at its URL, for /supported to name (`bazaar`: the discovery listing). */
  extensions?: string[]
  /**
   * How long a settle waits for its transaction's receipt before answering `settlement_pending`
   * and finishing in the background (config `facilitator.receiptTimeoutMs`); default 30 s.
   */
  receiptTimeoutMs?: number
  /** Where the size of each settlement batch is recorded (daemon/metrics/facilitator.ts); none: not recorded. */
  metrics?: Pick<FacilitatorRecorder, 'batch'>
}

/** The receipt wait when the config names none. */
export const DEFAULT_RECEIPT_TIMEOUT_MS = 30_000
