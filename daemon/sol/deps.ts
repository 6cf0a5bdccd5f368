import type { Keypair } from '@solana/web3.js'
import type { FlowName, ParxConfig } from '../../src/config/schema.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import { solanaKeypair } from '../keys/solana-keypair.js'
import { type KeyedLock, processLock } from '../locks/lock.js'
import { storeLock } from '../locks/store-lock.js'
import type { Store } from '../store/store.js'
import { processSettlePasses, type SettlePasses } from './settle-passes.js'
import { type SolSwapStore, solSwapStore } from './swap-store.js'

/** What the Solana swap functions need, passed in (the composition root builds it once). */
export type SolDeps = {
  chain: SolanaChain
  solver: Keypair
  store: SolSwapStore
  /** Held from reading what is free to recording the swap that promises it (per network and mint). */
  reservations: KeyedLock
  /** Port: sharing and throttling of the passes that settle open swaps. */
  passes: SettlePasses
  limits: ParxConfig['limits']
  flowEnabled(flow: FlowName): boolean
}

export function solDeps(p: {
  chain: SolanaChain
  solverKey: Uint8Array
  store: Store
  reservations?: KeyedLock
  limits: ParxConfig['limits']
  flowEnabled(flow: FlowName): boolean
}): SolDeps {
  return {
    chain: p.chain,
    solver: solanaKeypair(p.solverKey),
    store: solSwapStore(p.store),
    reservations: p.reservations ?? (p.store.dialect === 'postgres' ? storeLock(p.store) : processLock()),
    passes: processSettlePasses(),
    limits: p.limits,
    flowEnabled: p.flowEnabled,
  }
}
