import { rescaleDown } from '../../src/sdk/swap/amounts.js'

/**
 * Redemption pricing, pure. The price is what the Uniswap V2 pool pays right now (its 0.3% LP fee
 * included), whether the solver then fills from inventory or through the pool: the route does not
 * change the price.
 */

/**
 * What a V2 pair pays for `amountIn` (UniswapV2Library.getAmountOut; the router's `swapViaPool` uses the same formula).
 */
export function poolAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n
  const withFee = amountIn * 997n
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee)
}

/** Shortfall of `out` below par, in basis points rounded up (a user is never told it is better than it is). */
export function slippageBps(parOut: bigint, out: bigint): number {
  if (parOut <= 0n || out >= parOut) return 0
  return Number(ceilDiv((parOut - out) * 10_000n, parOut))
}

/**
 * Room left for the pool to move between the quote and the settlement. The floor gives up at most
 * this much, and never so much that the floor itself would breach the slippage budget.
 */
export const QUOTE_DRIFT_BPS = 10

/** The floor a user signs as minOutputAmount: the pool's output less the drift allowance. */
export function minOutFloor(out: bigint, quoteSlippageBps: number, slippageBpsMax: number): bigint {
  const drift = BigInt(Math.max(0, Math.min(QUOTE_DRIFT_BPS, slippageBpsMax - quoteSlippageBps)))
  return out - ceilDiv(out * drift, 10_000n)
}

export type Pool = { reserveIn: bigint; reserveOut: bigint; inDecimals: number; outDecimals: number }

export type Priced = { parOut: bigint; out: bigint; slippageBps: number }

export function price(pool: Pool, amountIn: bigint): Priced {
  const parOut = rescaleDown(amountIn, pool.inDecimals, pool.outDecimals)
  const out = poolAmountOut(amountIn, pool.reserveIn, pool.reserveOut)
  // Compared at the finer of the two precisions: par rounded to the output's units would make
  // slippage jump around within one output unit, and a smaller size could then slip more.
  const fine = Math.max(pool.inDecimals, pool.outDecimals)
  return {
    parOut,
    out,
    slippageBps: slippageBps(rescaleDown(amountIn, pool.inDecimals, fine), rescaleDown(out, pool.outDecimals, fine)),
  }
}

/**
 * The largest input (at most `upper`) whose slippage stays within `maxBps`: the size a rejected
 * request can retry with. Slippage only grows with size, so a binary search finds it.
 */
export function largestWithin(pool: Pool, maxBps: number, upper: bigint): bigint {
  let lo = 0n
  let hi = upper
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n
    const p = price(pool, mid)
    if (p.parOut > 0n && p.slippageBps <= maxBps) lo = mid
    else if (p.parOut === 0n)
      lo = mid // below one output unit there is nothing to price yet
    else hi = mid - 1n
  }
  return lo
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b
