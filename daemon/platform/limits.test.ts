import { describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { checkSpend, hostAllowed, remainingMicros, usdMicros, type LimitPolicy } from './limits.js'

const none: LimitPolicy = { perPaymentUsd: null, dailyUsd: null, allowedHosts: null }

function refusal(policy: LimitPolicy, x: Parameters<typeof checkSpend>[1]) {
  try {
    checkSpend(policy, x)
  } catch (e) {
    if (e instanceof BaseError) return e.toJSON()
    throw e
  }
  throw new Error('the spend was allowed')
}

describe('spending limits', () => {
  it('converts token amounts to USD micro-units, rounding up past 6 decimals', () => {
    expect(usdMicros('1.5', 6)).toBe(1_500_000n)
    expect(usdMicros('1.5', 18)).toBe(1_500_000n)
    expect(usdMicros('0.000000000000000001', 18)).toBe(1n)
    expect(usdMicros('2', 2)).toBe(2_000_000n)
  })

  it('allows anything without limits, and exactly up to a limit', () => {
    expect(() => checkSpend(none, { amountMicros: 10n ** 15n, spentTodayMicros: 0n, host: 'x.org' })).not.toThrow()
    const p = { ...none, perPaymentUsd: '5', dailyUsd: '10' }
    expect(() => checkSpend(p, { amountMicros: 5_000_000n, spentTodayMicros: 5_000_000n })).not.toThrow()
  })

  it('per payment: refused with the limit, the amount and what the day still allows', () => {
    expect(refusal({ ...none, perPaymentUsd: '5', dailyUsd: '50' }, { amountMicros: 5_000_001n, spentTodayMicros: 20_000_000n })).toEqual({
      error: "5.000001 USD is above this agent's per-payment limit of 5 USD; nothing was spent",
      code: 'LIMIT_EXCEEDED', limit: 'perPayment', limitUsd: '5', amountUsd: '5.000001', remainingUsd: '30',
    })
  })

  it('daily: what remains of the rolling day', () => {
    const p = { ...none, dailyUsd: '10' }
    expect(refusal(p, { amountMicros: 3_000_000n, spentTodayMicros: 8_000_000n })).toMatchObject({ limit: 'daily', limitUsd: '10', amountUsd: '3', remainingUsd: '2' })
    expect(remainingMicros(p, 12_000_000n)).toBe(0n)
    expect(remainingMicros(none, 12_000_000n)).toBeNull()
  })

  it('hosts: exact names and *. sub-domains', () => {
    const allowed = ['api.example.com', '*.paid.org']
    expect(hostAllowed(allowed, 'API.example.com')).toBe(true)
    expect(hostAllowed(allowed, 'a.b.paid.org')).toBe(true)
    expect(hostAllowed(allowed, 'paid.org')).toBe(false)
    expect(hostAllowed(allowed, 'evilpaid.org')).toBe(false)
    expect(hostAllowed(allowed, 'example.com')).toBe(false)
    expect(refusal({ ...none, allowedHosts: allowed }, { amountMicros: 1n, spentTodayMicros: 0n, host: 'x.org' })).toMatchObject({ limit: 'allowedHosts', limitUsd: null })
  })
})
