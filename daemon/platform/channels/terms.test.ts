import { describe, expect, it } from 'vitest'
import type { SettleResponse } from '../../../src/sdk/x402/types.js'
import { chargedBy } from './pay.js'
import { depositAmount } from './terms.js'

describe('depositAmount', () => {
  const base = { needed: 1000n, price: 1000n, multiplier: 10, cap: 5_000_000n, room: null }
  it('is multiplier x the price, or the seller minDeposit when larger', () => {
    expect(depositAmount(base)).toBe(10_000n)
    expect(depositAmount({ ...base, minDeposit: 50_000n })).toBe(50_000n)
    expect(depositAmount({ ...base, minDeposit: 500n })).toBe(10_000n)
  })
  it('never above the cap nor what the day still allows, never below what this request needs', () => {
    expect(depositAmount({ ...base, minDeposit: 9_000_000n })).toBe(5_000_000n)
    expect(depositAmount({ ...base, room: 3000n })).toBe(3000n)
    expect(depositAmount({ ...base, room: 10n })).toBe(1000n)
  })
  it('refuses a request that alone needs more than the cap', () => {
    expect(() => depositAmount({ ...base, needed: 6_000_000n })).toThrow(expect.objectContaining({ code: 'CHANNEL_TERMS_REFUSED' }))
  })
})

describe('chargedBy', () => {
  const settle = (extra?: Record<string, unknown>): SettleResponse => ({ success: true, transaction: '', network: 'eip155:1', ...(extra ? { extra } : {}) })
  it("reads the seller's cumulative, else its chargedAmount, else the price", () => {
    expect(chargedBy(settle({ channelState: { chargedCumulativeAmount: '5400' } }), 5000n, 1000n)).toBe(400n)
    expect(chargedBy(settle({ chargedAmount: '300' }), 5000n, 1000n)).toBe(300n)
    expect(chargedBy(settle(), 5000n, 1000n)).toBe(1000n)
  })
  it('never more than the price, never below zero', () => {
    expect(chargedBy(settle({ chargedAmount: '99999' }), 0n, 1000n)).toBe(1000n)
    expect(chargedBy(settle({ channelState: { chargedCumulativeAmount: '10' } }), 5000n, 1000n)).toBe(0n)
  })
})
