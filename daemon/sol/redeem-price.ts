import type { ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import { checkRedeemCeiling } from '../swap/limits.js'
import { largestWithin, minOutFloor, type Pool, type Priced, price } from '../swap/redeem-math.js'

/**
 * Solana redemption pricing, pure. Solana has no pool of ours, so its live liquidity is the
 * solver's own inventory: its balance of the input stable and its unreserved USDC are the two
 * reserves of the same curve the Base pool uses (Uniswap V2 getAmountOut, 0.3% fee included).
 * The price therefore moves with every redemption and entry buy that lands, exactly as pool
 * depth does on Base, and nothing is hard-coded. The solver never pays above par, even when its
 * inventory is long on USDC.
 */
export type SolRedeemPlan = { amountIn: bigint; pool: Pool; priced: Priced; minOut: bigint }

export type SolRedeemInputs = {
  amountIn: bigint
  inDecimals: number
  outDecimals: number
  /** Solver's balance of the input stable. */
  reserveIn: bigint
  /** Solver's USDC less what co-signed, unlanded transactions already promise. */
  reserveOut: bigint
  slippageBpsMax: number
}

export function planSolRedeem(x: SolRedeemInputs): SolRedeemPlan {
  const pool: Pool = {
    reserveIn: x.reserveIn,
    reserveOut: x.reserveOut,
    inDecimals: x.inDecimals,
    outDecimals: x.outDecimals,
  }
  const raw = price(pool, x.amountIn)
  if (raw.parOut === 0n) {
    throw new BaseError(
      'BAD_REQUEST',
      `the amount is below one unit of USDC (${fromBaseUnits(1n, x.outDecimals)}): redeem more`,
    )
  }
  const priced = raw.out > raw.parOut ? { ...raw, out: raw.parOut, slippageBps: 0 } : raw
  return { amountIn: x.amountIn, pool, priced, minOut: minOutFloor(priced.out, priced.slippageBps, x.slippageBpsMax) }
}

/**
 * Solana fills only from inventory (there is no pool to route through), so the single-shot size
 * is also the absolute ceiling: both `maxUsd` and `hardMaxUsd` report the smaller of the two.
 */
export const solRedeemMaxUsd = (limits: ParxConfig['limits']): number =>
  Math.min(limits.redeemMaxUsd, limits.redeemHardMaxUsd)

export function checkSolRedeemCeiling(
  amountIn: bigint,
  decimals: number,
  symbol: string,
  limits: ParxConfig['limits'],
  field: string,
): void {
  checkRedeemCeiling(amountIn, decimals, symbol, solRedeemMaxUsd(limits), field)
}

/**
 * docs/swap-api.md "Redemptions": a quote whose slippage exceeds slippageBpsMax is refused with the size that would
 * fit.
 */
export function checkSolSlippage(plan: SolRedeemPlan, symbol: string, decimals: number, slippageBpsMax: number): void {
  if (plan.priced.slippageBps <= slippageBpsMax) return
  const fits = largestWithin(plan.pool, slippageBpsMax, plan.amountIn)
  throw new BaseError(
    'SLIPPAGE_TOO_HIGH',
    `redeeming ${fromBaseUnits(plan.amountIn, decimals)} ${symbol} would slip ` +
      `${plan.priced.slippageBps} bps against the solver's inventory, above slippageBpsMax ` +
      `= ${slippageBpsMax}: reduce the size to at most ${fromBaseUnits(fits, decimals)} and re-quote`,
  )
}
