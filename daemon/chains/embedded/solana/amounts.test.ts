import { describe, expect, it } from 'vitest'
import { formatDecimalAmount, parseDecimalAmount, uiTokenAmount } from './amounts.js'

describe('decimal amounts', () => {
  it('parses exactly at the decimals', () => {
    expect(parseDecimalAmount('25.5', 9)).toBe(25_500_000_000n)
    expect(parseDecimalAmount('1', 0)).toBe(1n)
    expect(parseDecimalAmount('123456789012345678.000000001', 9)).toBe(123456789012345678000000001n)
    expect(() => parseDecimalAmount('0.0000001', 6)).toThrow(/decimal places/)
    for (const bad of ['', '-1', '1e3', '.5', '1.', '0x10', 'abc']) expect(() => parseDecimalAmount(bad, 6)).toThrow()
  })

  it('formats the way the RPC does', () => {
    expect(formatDecimalAmount(1_500_000n, 6)).toBe('1.5')
    expect(formatDecimalAmount(0n, 6)).toBe('0')
    expect(formatDecimalAmount(1n, 9)).toBe('0.000000001')
    expect(formatDecimalAmount(7n, 0)).toBe('7')
    expect(uiTokenAmount(2_000_000n, 6)).toEqual({ amount: '2000000', decimals: 6, uiAmount: 2, uiAmountString: '2' })
  })
})
