import { describe, expect, it } from 'vitest'
import { reasons } from '../../reasons.js'
import type { SettleResponse } from '../../types.js'
import { baseUnitsOf, chargedBy, isCorrective } from './charged.js'

const settle = (extra?: Record<string, unknown>): SettleResponse => ({
  success: true,
  transaction: '',
  network: 'eip155:8453',
  ...(extra ? { extra } : {}),
})

describe('chargedBy', () => {
  it("reads the seller's cumulative, else its chargedAmount, else the price", () => {
    expect(chargedBy(settle({ channelState: { chargedCumulativeAmount: '5400' } }), 5000n, 1000n)).toBe(400n)
    expect(chargedBy(settle({ chargedAmount: '300' }), 5000n, 1000n)).toBe(300n)
    expect(chargedBy(settle(), 5000n, 1000n)).toBe(1000n)
  })
  it('never more than the price, never below zero', () => {
    expect(chargedBy(settle({ chargedAmount: '99999' }), 0n, 1000n)).toBe(1000n)
    expect(chargedBy(settle({ channelState: { chargedCumulativeAmount: '10' } }), 5000n, 1000n)).toBe(0n)
  })
  it('takes the price when the seller spells an amount that is no amount', () => {
    expect(chargedBy(settle({ chargedAmount: '-5' }), 0n, 1000n)).toBe(1000n)
    expect(chargedBy(settle({ chargedAmount: 300 }), 0n, 1000n)).toBe(1000n)
    expect(chargedBy(settle({ channelState: { chargedCumulativeAmount: '1'.repeat(40) } }), 0n, 1000n)).toBe(1000n)
  })
})

describe('baseUnitsOf', () => {
  it('reads a uint128 spelt in digits, nothing else', () => {
    expect(baseUnitsOf('0')).toBe(0n)
    expect(baseUnitsOf('9'.repeat(39))).toBe(BigInt('9'.repeat(39)))
    for (const v of ['', '1.5', '0x10', ' 1', '9'.repeat(40), 1, null, undefined])
      expect(baseUnitsOf(v)).toBeUndefined()
  })
})

describe('isCorrective', () => {
  it("is true for the seller's two drift refusals only", () => {
    expect(isCorrective(reasons.batchCumulativeAmountMismatch)).toBe(true)
    expect(isCorrective(reasons.batchCumulativeBelowClaimed)).toBe(true)
    expect(isCorrective(reasons.batchCumulativeExceedsBalance)).toBe(false)
    expect(isCorrective(undefined)).toBe(false)
  })
})
