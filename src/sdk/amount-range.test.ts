import { describe, expect, it } from 'vitest'
import { assertFits, U64_MAX, UINT256_MAX } from './amount-range.js'

describe('assertFits', () => {
  it('accepts up to the limit and refuses past it, counting what is held', () => {
    expect(() => assertFits({ adding: U64_MAX, max: U64_MAX, what: 'x' })).not.toThrow()
    expect(() => assertFits({ adding: U64_MAX + 1n, max: U64_MAX, what: 'x' })).toThrow(
      expect.objectContaining({ code: 'AMOUNT_OUT_OF_RANGE' }),
    )
    expect(() => assertFits({ adding: 2n, held: U64_MAX - 1n, max: U64_MAX, what: 'x' })).toThrow(/out of range/)
    expect(() => assertFits({ adding: 10n ** 78n, max: UINT256_MAX, what: 'USDC supply' })).toThrow(/USDC supply/)
  })
})
