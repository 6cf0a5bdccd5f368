import type { Keypair } from '@solana/web3.js'
import type { ParxConfig } from '../../../../src/config/schema.js'
import type { EvmChain } from '../../../chains/evm/chain.js'
import type { TxSender } from '../../../chains/evm/tx-sender.js'
import type { SolanaChain } from '../../../chains/solana/chain.js'
import type { Store } from '../../../store/store.js'

/** What the sol-origin rail needs: both chains, the solver's keys on each, and the timing. */
export type SolOriginDeps = {
  solana: SolanaChain
  base: EvmChain
  /** The Solana solver: fee payer of the lock, the claim and the refund, and the claimant. */
  solver: Keypair
  /** The Base solver's sender (outbox-backed): pays the fills. */
  baseSender: TxSender
  /** Read-only use of the transaction outbox: a fill of an order still in flight after a crash. */
  store: Store
  limits: ParxConfig['limits']
  timing: ParxConfig['xchain']
}
