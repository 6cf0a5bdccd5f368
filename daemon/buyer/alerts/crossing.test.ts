import { describe, expect, it } from 'vitest'
import { averageMicros, budgetCrossed, factorMilli, paymentAbove, rateCrossed, refusalsCrossed } from './crossing.js'

const usd = (v: number) => BigInt(Math.round(v * 1e6))

describe('budget crossing', () => {
  const at = (before: number, after: number) =>
    budgetCrossed({ beforeMicros: usd(before), afterMicros: usd(after), limitMicros: usd(10), percent: 80 })
  it('fires on the spend that takes the window from below 80% to at or above it', () => {
    expect(at(7, 8)).toBe(true)
    expect(at(7.99, 8.5)).toBe(true)
    expect(at(0, 10)).toBe(true)
  })
  it('not on later spends while it stays above, nor on spends that stay below', () => {
    expect(at(8, 9)).toBe(false)
    expect(at(8.5, 9)).toBe(false)
    expect(at(1, 7.999999)).toBe(false)
  })
  it('again once the window fell back below: the next crossing spend starts from below', () => {
    expect(at(9, 9.5)).toBe(false)
    // spends left the rolling window: before is below again
    expect(at(3, 8.2)).toBe(true)
  })
  it('is exact at the line (no float): 80% of 0.000003 USD', () => {
    expect(budgetCrossed({ beforeMicros: 2n, afterMicros: 3n, limitMicros: 3n, percent: 80 })).toBe(true)
    expect(budgetCrossed({ beforeMicros: 1n, afterMicros: 2n, limitMicros: 3n, percent: 80 })).toBe(false)
  })
})

describe('payment above, refusals', () => {
  it('a payment strictly above the threshold', () => {
    expect(paymentAbove(usd(5.000001), usd(5))).toBe(true)
    expect(paymentAbove(usd(5), usd(5))).toBe(false)
  })
  it('the refusal that makes the count reach N, not the ones after it', () => {
    expect([1, 2, 3, 4, 5].map((c) => refusalsCrossed(c, 3))).toEqual([false, false, true, false, false])
  })
})

describe('spend rate', () => {
  const base = { baselineMicros: usd(168), period: 'hour' as const, factorMilli: factorMilli('3') } // average 1 USD an hour
  it('fires when the last hour goes above 3 times the 7-day hourly average, once', () => {
    expect(rateCrossed({ ...base, beforeMicros: usd(2), afterMicros: usd(3.1) })).toBe(true)
    expect(rateCrossed({ ...base, beforeMicros: usd(3.1), afterMicros: usd(4) })).toBe(false)
    expect(rateCrossed({ ...base, beforeMicros: usd(1), afterMicros: usd(3) })).toBe(false)
  })
  it('a day period divides the week by 7; fractional factors are exact', () => {
    expect(
      rateCrossed({
        baselineMicros: usd(7),
        period: 'day',
        factorMilli: factorMilli('2.5'),
        beforeMicros: 0n,
        afterMicros: usd(2.5),
      }),
    ).toBe(false)
    expect(
      rateCrossed({
        baselineMicros: usd(7),
        period: 'day',
        factorMilli: factorMilli('2.5'),
        beforeMicros: 0n,
        afterMicros: usd(2.500001),
      }),
    ).toBe(true)
    expect(averageMicros(usd(7), 'day')).toBe(usd(1))
  })
  it('never without a baseline: a new agent has no average', () => {
    expect(rateCrossed({ ...base, baselineMicros: 0n, beforeMicros: 0n, afterMicros: usd(100) })).toBe(false)
  })
  it('reads factors to thousandths', () => {
    expect(factorMilli('3')).toBe(3000n)
    expect(factorMilli('1.25')).toBe(1250n)
    expect(factorMilli('10.005')).toBe(10005n)
  })
})
