import { describe, expect, it } from 'vitest'
import { fromBaseUnits, toBaseUnits } from './units.js'

describe('toBaseUnits', () => {
  it('converts exactly at 18 and 6 decimals', () => {
    expect(toBaseUnits('0.1', 18)).toBe(100000000000000000n)
    expect(toBaseUnits('123456789.123456789123456789', 18)).toBe(123456789123456789123456789n)
    expect(toBaseUnits('1.5', 6)).toBe(1500000n)
    expect(toBaseUnits('7', 0)).toBe(7n)
  })
  it('accepts trailing zeros beyond the precision', () => {
    expect(toBaseUnits('1.500000000', 6)).toBe(1500000n)
  })
  it('refuses more decimals than the token has, and non-decimals', () => {
    expect(() => toBaseUnits('1.0000001', 6)).toThrow(/more than 6 decimal places/)
    for (const bad of ['-1', '1e5', 'abc', '', '1.', '.5'])
      expect(() => toBaseUnits(bad, 6)).toThrow(/positive decimal/)
  })
})

describe('fromBaseUnits', () => {
  it('round-trips', () => {
    for (const [v, d] of [
      ['0.000001', 6],
      ['1', 18],
      ['42.5', 18],
      ['0', 6],
    ] as const) {
      expect(fromBaseUnits(toBaseUnits(v, d), d)).toBe(v)
    }
  })
})
