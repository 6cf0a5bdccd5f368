import { Connection, PublicKey } from '@solana/web3.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { solanaConnection } from '../rpc-auth.js'

export type SplMint = { symbol: string; mint: PublicKey; decimals: number }

/** One Solana network as routes and the worker see it; embedded or real looks the same. */
export type SolanaChain = {
  key: string
  spec: NetworkSpec
  rpcUrl: string
  wsUrl: string
  connection: Connection
  mints: Record<string, SplMint>
  /** The cross-chain settlement programs (`originSettler`, `destSettler`), where deployed. */
  programs: { originSettler?: PublicKey; destSettler?: PublicKey }
  /**
   * Embedded cluster only, for tests: moves its clock ahead (blockhashes issued before expire).
   * Routes never use it; they see any cluster through `connection` alone.
   */
  testHooks?: { advanceSlots(slots: number): number }
}

/**
 * `contracts`: addresses by name, as the config's `contracts[network]` holds them (mints by symbol, programs by name).
 * `fetch`: how `connection` sends its HTTP requests (the embedded cluster answers in process).
 */
export function solanaChain(spec: NetworkSpec, rpcUrl: string, wsUrl: string, contracts: Record<string, string>, opts: { fetch?: typeof fetch } = {}): SolanaChain {
  const mints = contracts
  const out: Record<string, SplMint> = {}
  for (const t of spec.tokens) {
    const address = mints[t.symbol] ?? t.address
    if (address) out[t.symbol] = { symbol: t.symbol, mint: new PublicKey(address), decimals: t.decimals }
  }
  return {
    key: spec.key, spec, rpcUrl, wsUrl,
    connection: solanaConnection(rpcUrl, { commitment: 'confirmed', wsEndpoint: wsUrl, ...(opts.fetch ? { fetch: opts.fetch } : {}) }),
    mints: out,
    programs: {
      originSettler: contracts.originSettler ? new PublicKey(contracts.originSettler) : undefined,
      destSettler: contracts.destSettler ? new PublicKey(contracts.destSettler) : undefined,
    },
  }
}
