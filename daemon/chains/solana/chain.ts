import { Connection, PublicKey } from '@solana/web3.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'

export type SplMint = { symbol: string; mint: PublicKey; decimals: number }

/** One Solana network as routes and the worker see it; embedded or real looks the same. */
export type SolanaChain = {
  key: string
  spec: NetworkSpec
  rpcUrl: string
  wsUrl: string
  connection: Connection
  mints: Record<string, SplMint>
  /**
   * Embedded cluster only, for tests: moves its clock ahead (blockhashes issued before expire).
   * Routes never use it; they see any cluster through `connection` alone.
   */
  testHooks?: { advanceSlots(slots: number): number }
}

export function solanaChain(spec: NetworkSpec, rpcUrl: string, wsUrl: string, mints: Record<string, string>): SolanaChain {
  const out: Record<string, SplMint> = {}
  for (const t of spec.tokens) {
    const address = mints[t.symbol] ?? t.address
    if (address) out[t.symbol] = { symbol: t.symbol, mint: new PublicKey(address), decimals: t.decimals }
  }
  return {
    key: spec.key, spec, rpcUrl, wsUrl,
    connection: new Connection(rpcUrl, { commitment: 'confirmed', wsEndpoint: wsUrl }),
    mints: out,
  }
}
