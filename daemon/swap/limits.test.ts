import { describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import { checkParSize, checkRedeemCeiling, usdToUnits } from './limits.js'

describe('usdToUnits', () => {
  it('turns a USD limit into exact base units at any precision', () => {
    expect(usdToUnits(10_000, 6)).toBe(10_000_000_000n)
    expect(usdToUnits(10_000, 18)).toBe(10_000n * 10n ** 18n)
    expect(usdToUnits(0.1, 18)).toBe(10n ** 17n)
    expect(usdToUnits(1e21, 6)).toBe(10n ** 27n)
    expect(usdToUnits(0.1234567, 6)).toBe(123_456n)
  })
})

describe('checkParSize', () => {
  it('allows the limit itself, refuses one unit more, and has no cap when max is null', () => {
    expect(() => checkParSize(10_000_000_000n, 6, USDC, 10_000)).not.toThrow()
    expect(() => checkParSize(10_000_000_001n, 6, USDC, 10_000)).toThrow(
      expect.objectContaining({ code: 'AMOUNT_TOO_LARGE' }),
    )
    expect(() => checkParSize(10n ** 40n, 18, TOKEN_A, null)).not.toThrow()
  })
})

describe('checkRedeemCeiling', () => {
  it('refuses above hardMaxUsd and says to reduce and re-quote', () => {
    expect(() => checkRedeemCeiling(100_000n * 10n ** 18n, 18, TOKEN_A, 100_000)).not.toThrow()
    expect(() => checkRedeemCeiling(100_000n * 10n ** 18n + 1n, 18, TOKEN_A, 100_000)).toThrow(
      /hardMaxUsd = 100000: reduce the size and re-quote/,
    )
  })
})
