import { describe, expect, it } from 'vitest'
import { rescaleDown, rescaleExact } from './amounts.js'

describe('rescaleExact', () => {
  it('rescales 18 to 6 decimals exactly and 6 to 18 by padding', () => {
    expect(rescaleExact(12_345_678_000_000_000_000n, 18, 6)).toBe(12_345_678n)
    expect(rescaleExact(12_345_678n, 6, 18)).toBe(12_345_678_000_000_000_000n)
    expect(rescaleExact(5n, 6, 6)).toBe(5n)
  })
  it('refuses to drop digits the output cannot carry', () => {
    expect(() => rescaleExact(12_345_678_000_000_000_001n, 18, 6)).toThrow(/more than 6 decimal places/)
  })
})

describe('rescaleDown', () => {
  it('rounds down where a priced route compares against par', () => {
    expect(rescaleDown(12_345_678_999_999_999_999n, 18, 6)).toBe(12_345_678n)
    expect(rescaleDown(7n, 6, 18)).toBe(7_000_000_000_000n)
  })
})
