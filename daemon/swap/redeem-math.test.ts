import { describe, expect, it } from 'vitest'
import {
  largestWithin,
  minOutFloor,
  type Pool,
  poolAmountOut,
  price,
  QUOTE_DRIFT_BPS,
  slippageBps,
} from './redeem-math.js'

const e18 = 10n ** 18n
const e6 = 10n ** 6n
/** A PUSD(18)/USDC(6) pool of 5 000 000 per side, as the local profile seeds it. */
const pool: Pool = { reserveIn: 5_000_000n * e18, reserveOut: 5_000_000n * e6, inDecimals: 18, outDecimals: 6 }

describe('poolAmountOut', () => {
  it('is Uniswap V2 getAmountOut with the 0.3% fee, rounded down', () => {
    expect(poolAmountOut(1000n, 1_000_000n, 1_000_000n)).toBe(996n) // 997000*1e6 / (1e9 + 997000) = 996.006...
    expect(poolAmountOut(0n, 1n, 1n)).toBe(0n)
    expect(poolAmountOut(10n, 0n, 1000n)).toBe(0n)
  })
})

describe('slippageBps', () => {
  it('is the shortfall below par, rounded up, never negative', () => {
    expect(slippageBps(10_000n, 10_000n)).toBe(0)
    expect(slippageBps(10_000n, 9_970n)).toBe(30)
    expect(slippageBps(10_000n, 9_969n)).toBe(31)
    expect(slippageBps(1_000_000n, 996_999n)).toBe(31) // 30.01 bps rounds up
    expect(slippageBps(10_000n, 10_500n)).toBe(0)
  })
})

describe('price', () => {
  it('prices 100 PUSD at the pool: the LP fee and a sliver of impact below par', () => {
    const p = price(pool, 100n * e18)
    expect(p.parOut).toBe(100n * e6)
    expect(p.out).toBe(poolAmountOut(100n * e18, pool.reserveIn, pool.reserveOut))
    expect(p.out).toBe(99_698_012n) // 99.7 * 5e6 / (5e6 + 99.7)
    expect(p.slippageBps).toBe(31)
  })

  it('grows with size', () => {
    const small = price(pool, 1_000n * e18).slippageBps
    const large = price(pool, 50_000n * e18).slippageBps
    expect(large).toBeGreaterThan(small)
    expect(large).toBe(129)
  })
})

describe('minOutFloor', () => {
  it('gives up the drift allowance when the budget has room for it', () => {
    expect(minOutFloor(1_000_000n, 31, 50)).toBe(1_000_000n - 1_000n) // 10 bps
  })
  it('gives up only what is left of the budget', () => {
    expect(minOutFloor(1_000_000n, 45, 50)).toBe(1_000_000n - 500n)
    expect(minOutFloor(1_000_000n, 50, 50)).toBe(1_000_000n)
    expect(minOutFloor(1_000_000n, 60, 50)).toBe(1_000_000n)
  })
  it('rounds the allowance up so the floor never exceeds the pool output', () => {
    expect(minOutFloor(999n, 0, 50)).toBe(999n - 1n) // 0.999 units of allowance round to 1
    expect(QUOTE_DRIFT_BPS).toBe(10)
  })
})

describe('largestWithin', () => {
  it('finds the largest size within the budget, and one unit more breaks it', () => {
    const max = largestWithin(pool, 50, 100_000n * e18)
    expect(price(pool, max).slippageBps).toBeLessThanOrEqual(50)
    expect(price(pool, max + 1n).slippageBps).toBeGreaterThan(50)
    expect(max / e18).toBe(10_080n) // 0.997R / (R + 0.997a) >= 0.995  <=>  a <= 0.002R / 0.992015
  })
  it('stops at the upper bound', () => {
    expect(largestWithin(pool, 50, 7n * e18)).toBe(7n * e18)
  })
})
