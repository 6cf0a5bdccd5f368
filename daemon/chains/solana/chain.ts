import { type Connection, PublicKey } from '@solana/web3.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { solanaConnection } from '../rpc-auth.js'
import { connectionReads, type SolanaReads } from './reads.js'

export type SplMint = { symbol: string; mint: PublicKey; decimals: number }

/** One Solana network as routes and the worker see it; embedded or real looks the same. */
export type SolanaChain = {
  key: string
  spec: NetworkSpec
  rpcUrl: string
  wsUrl: string
  connection: Connection
  /**
   * Account, blockhash and height reads and simulations: through `connection`, or in process for the embedded cluster.
   */
  reads: SolanaReads
  mints: Record<string, SplMint>
  /** The cross-chain settlement programs (`originSettler`, `destSettler`), where deployed. */
  programs: { originSettler?: PublicKey; destSettler?: PublicKey }
  /**
   * Embedded cluster only, for tests: moves its clock ahead (blockhashes issued before expire).
   * Routes never use it; they see any cluster through `connection` and `reads` alone.
   */
  testHooks?: { advanceSlots(slots: number): Promise<number> }
}

/**
 * `contracts`: addresses by name, as the config's `contracts[network]` holds them (mints by symbol, programs by name).
 * `fetch`: how `connection` sends its HTTP requests (the embedded cluster answers in process).
 * `reads`: the reads, when not through `connection` (the embedded cluster answers from its own state).
 */
export function solanaChain(
  spec: NetworkSpec,
  rpcUrl: string,
  wsUrl: string,
  contracts: Record<string, string>,
  opts: { fetch?: typeof fetch; reads?: SolanaReads } = {},
): SolanaChain {
  const mints = contracts
  const out: Record<string, SplMint> = {}
  for (const t of spec.tokens) {
    const address = mints[t.symbol] ?? t.address
    if (address) out[t.symbol] = { symbol: t.symbol, mint: new PublicKey(address), decimals: t.decimals }
  }
  const connection = solanaConnection(rpcUrl, {
    commitment: 'confirmed',
    wsEndpoint: wsUrl,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  })
  return {
    key: spec.key,
    spec,
    rpcUrl,
    wsUrl,
    connection,
    reads: opts.reads ?? connectionReads(connection),
    mints: out,
    programs: {
      originSettler: contracts.originSettler ? new PublicKey(contracts.originSettler) : undefined,
      destSettler: contracts.destSettler ? new PublicKey(contracts.destSettler) : undefined,
    },
  }
}
