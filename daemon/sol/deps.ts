import { Keypair } from '@solana/web3.js'
import type { FlowName, ParxConfig } from '../../src/config/schema.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import type { Db } from '../store/db.js'
import { solSwapStore, type SolSwapStore } from './swap-store.js'

/** What the Solana swap functions need, passed in (the composition root builds it once). */
export type SolDeps = {
  chain: SolanaChain
  solver: Keypair
  store: SolSwapStore
  limits: ParxConfig['limits']
  flowEnabled(flow: FlowName): boolean
}

export function solDeps(p: { chain: SolanaChain; solverKey: Uint8Array; db: Db; limits: ParxConfig['limits']; flowEnabled(flow: FlowName): boolean }): SolDeps {
  return { chain: p.chain, solver: Keypair.fromSecretKey(p.solverKey), store: solSwapStore(p.db), limits: p.limits, flowEnabled: p.flowEnabled }
}
