import { BaseError } from '../../src/errors/index.js'
import type { SolanaReads } from '../chains/solana/reads.js'
import { rpc } from './accounts.js'

/**
 * Runs the co-signed transaction (`wire`, its wire bytes) without the user's signature (sigVerify off) before handing
 * it
 * out: what the checks cannot see (a frozen account, a token extension) fails here, not on chain
 * where the solver, as fee payer, would pay for the failure.
 */
export async function simulateSwap(reads: SolanaReads, wire: Uint8Array): Promise<void> {
  const value = await rpc(() => reads.simulate(wire, { sigVerify: false, commitment: 'confirmed' }))
  if (!value.err) return
  const logs = (value.logs ?? []).slice(-4).join(' | ')
  throw new BaseError(
    'SIMULATION_FAILED',
    `the swap transaction fails in simulation with ` +
      `${JSON.stringify(value.err)}${logs ? ` (${logs})` : ''}; ` +
      `no transaction was handed out: check the balances and retry`,
  )
}
