import { describe, expect, it } from 'vitest'
import type { BaseError } from '../../src/errors/index.js'
import { errorCodeOf as codeOf } from '../../test/helpers/error-code.js'
import { price } from '../swap/redeem-math.js'
import { checkSolRedeemCeiling, checkSolSlippage, planSolRedeem, solRedeemMaxUsd } from './redeem-price.js'

const e9 = 10n ** 9n
const e6 = 10n ** 6n
/** The local solver's starting inventory: 1 000 000 PUSD (9 decimals) and 1 000 000 USDC. */
const inventory = {
  inDecimals: 9,
  outDecimals: 6,
  reserveIn: 1_000_000n * e9,
  reserveOut: 1_000_000n * e6,
  slippageBpsMax: 50,
}
const limits = {
  maxUsd: 10_000,
  redeemMaxUsd: 25_000,
  redeemHardMaxUsd: 100_000,
  slippageBpsMax: 50,
  xchainMaxUsd: 5_000,
}

describe('planSolRedeem', () => {
  it('prices on the V2 curve with the solver inventory as reserves, and floors by the drift allowance', () => {
    const plan = planSolRedeem({ ...inventory, amountIn: 100n * e9 })
    // 100 * 997 * 1e6 / (1e6 * 1000 + 100 * 997) USDC, as the Base pool would at this depth
    expect(plan.priced.out).toBe(99_690_060n)
    expect(plan.priced.parOut).toBe(100n * e6)
    expect(plan.priced.slippageBps).toBe(31)
    expect(plan.minOut).toBe(99_690_060n - 99_691n) // less 10 bps of drift, rounded up against the user
  })

  it('gets worse as the solver runs short of USDC, better as it holds more, never above par', () => {
    const at = (reserveOut: bigint) => planSolRedeem({ ...inventory, reserveOut, amountIn: 100n * e9 }).priced.out
    expect(at(500_000n * e6)).toBeLessThan(at(1_000_000n * e6))
    expect(at(1_000_000n * e6)).toBeLessThan(at(1_002_000n * e6))
    const long = planSolRedeem({ ...inventory, reserveOut: 2_000_000n * e6, amountIn: 100n * e9 })
    expect(long.priced.out).toBe(100n * e6)
    expect(long.priced.slippageBps).toBe(0)
    expect(price(long.pool, 100n * e9).out).toBeGreaterThan(100n * e6) // the curve alone would pay above par
  })

  it('refuses less than one USDC unit of input', () => {
    expect(codeOf(() => planSolRedeem({ ...inventory, amountIn: 999n }))).toBe('BAD_REQUEST')
    expect(planSolRedeem({ ...inventory, amountIn: 1000n }).priced.parOut).toBe(1n)
  })

  it('pays nothing from an inventory without the input token or USDC', () => {
    expect(planSolRedeem({ ...inventory, reserveIn: 0n, amountIn: e9 }).priced.out).toBe(0n)
    expect(planSolRedeem({ ...inventory, reserveOut: 0n, amountIn: e9 }).priced.slippageBps).toBe(10_000)
  })
})

describe('checkSolSlippage', () => {
  it('passes within slippageBpsMax and names a size that fits otherwise', () => {
    checkSolSlippage(planSolRedeem({ ...inventory, amountIn: 2000n * e9 }), 'PUSD', 9, 50)
    const big = planSolRedeem({ ...inventory, amountIn: 5000n * e9 })
    let message = ''
    try {
      checkSolSlippage(big, 'PUSD', 9, 50)
    } catch (e) {
      expect((e as BaseError).code).toBe('SLIPPAGE_TOO_HIGH')
      message = (e as BaseError).message
    }
    const fits = BigInt(/at most ([\d.]+)/.exec(message)![1]!.replace('.', ''))
    expect(planSolRedeem({ ...inventory, amountIn: fits }).priced.slippageBps).toBeLessThanOrEqual(50)
    expect(planSolRedeem({ ...inventory, amountIn: fits + 1n }).priced.slippageBps).toBeGreaterThan(50)
  })
})

describe('the Solana redemption ceiling', () => {
  it('is the smaller of redeemMaxUsd and redeemHardMaxUsd: inventory is the only route', () => {
    expect(solRedeemMaxUsd(limits)).toBe(25_000)
    expect(solRedeemMaxUsd({ ...limits, redeemHardMaxUsd: 20_000 })).toBe(20_000)
    expect(codeOf(() => checkSolRedeemCeiling(25_000n * e9, 9, 'PUSD', limits, 'amount'))).toBeUndefined()
    expect(codeOf(() => checkSolRedeemCeiling(25_000n * e9 + 1n, 9, 'PUSD', limits, 'amount'))).toBe('AMOUNT_TOO_LARGE')
  })
})
