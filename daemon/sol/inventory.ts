import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import { keyBase58 } from '../chains/solana/key-memo.js'
import type { SolDeps } from './deps.js'
import type { Holding } from './wallets.js'

/**
 * What the solver can still promise of a token: its balance, read after `mark` was taken, less
 * the output of transactions it co-signed that had not landed or expired by then. A caller that
 * promises what this returns reads it and records its swap under `d.reservations`, so no two
 * swaps promise the same units.
 */
export async function available(d: SolDeps, h: Holding, mark: number): Promise<bigint> {
  const free = h.balance - (await d.store.reserved(d.chain.key, keyBase58(h.token.mint), mark))
  return free > 0n ? free : 0n
}

export function checkSolInventory(h: Holding, free: bigint, amountOut: bigint): void {
  if (free >= amountOut) return
  const { symbol, decimals } = h.token
  throw new BaseError(
    'INVENTORY_SHORT',
    `the solver can pay ${fromBaseUnits(free, decimals)} ${symbol} now ` +
      `(${fromBaseUnits(h.balance, decimals)} held, the rest promised to swaps not ` +
      `yet landed), less than the ${fromBaseUnits(amountOut, decimals)} this swap ` +
      `pays: reduce the amount (see mints.${symbol}.available of /api/sol/info) or retry in a minute`,
  )
}

/** The solver pays every fee and any new token account's rent; it must also stay rent-exempt itself. */
export function checkSolverSol(lamports: bigint, needed: bigint): void {
  if (lamports >= needed) return
  throw new BaseError(
    'INVENTORY_SHORT',
    `the solver holds ${fromBaseUnits(lamports, 9)} SOL, less than the ` +
      `${fromBaseUnits(needed, 9)} SOL this transaction's fee and rent need: retry later`,
  )
}
