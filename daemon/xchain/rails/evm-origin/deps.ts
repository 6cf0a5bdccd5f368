import type { Keypair } from '@solana/web3.js'
import type { ParxConfig } from '../../../../src/config/schema.js'
import type { EvmChain } from '../../../chains/evm/chain.js'
import type { TxSender } from '../../../chains/evm/tx-sender.js'
import type { SolanaChain } from '../../../chains/solana/chain.js'
import type { Store } from '../../../store/store.js'
import type { OrderStore } from '../../order-store.js'

/** What the evm-origin rail needs: both chains, the solver's keys on each, its order rows, and the timing. */
export type EvmOriginDeps = {
  base: EvmChain
  solana: SolanaChain
  /** The Solana solver: pays and signs the fills on Solana. */
  solver: Keypair
  /** The Base solver's sender (outbox-backed): relays openFor, claims (it is the claimant) and refunds. */
  baseSender: TxSender
  /** Read-only use of the transaction outbox: a relay, claim or refund still in flight after a crash. */
  store: Store
  /**
   * The order rows, for the two references the rail writes itself: the relayed lock (compare-and-set,
   * so one submit relays) and the Solana fill's signature, persisted before it is sent.
   */
  orders: Pick<OrderStore, 'swapOpenRef' | 'note' | 'get'>
  limits: ParxConfig['limits']
  timing: ParxConfig['xchain']
}
