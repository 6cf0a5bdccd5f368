import type { Keypair } from '@solana/web3.js'
import type { FlowName, ParxConfig } from '../../src/config/schema.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import type { SolSwapStore } from './swap-store.js'

/** What the Solana swap functions need, passed in (routes build it from Services once). */
export type SolDeps = {
  chain: SolanaChain
  solver: Keypair
  store: SolSwapStore
  limits: ParxConfig['limits']
  flowEnabled(flow: FlowName): boolean
}
