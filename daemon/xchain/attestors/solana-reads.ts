import { solanaConnection } from '../../chains/rpc-auth.js'
import type { SolanaChain } from '../../chains/solana/chain.js'
import { connectionReads, type SolanaReads } from '../../chains/solana/reads.js'

/**
 * The Solana reads one attestor makes. On a real cluster each attestor reads through a connection
 * of its own, so its view does not depend on the solver's clients (in `parx attestor`, its own
 * process, `solana.reads` is that process's own connection either way). The embedded cluster lives in this very
 * process: an attestor here read its state through
 * the cluster's own HTTP socket (web3.js and superstruct on one side, the RPC dispatcher on the
 * other, ~3 such reads per order) and got the same state the in-process reads answer from.
 */
export function attestorSolanaReads(solana: Pick<SolanaChain, 'spec' | 'rpcUrl' | 'reads'>): SolanaReads {
  if (solana.spec.rpc === 'embedded') return solana.reads
  return connectionReads(solanaConnection(solana.rpcUrl, { commitment: 'confirmed' }))
}
