import { describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { type BudgetState, NO_BUDGET, NOTHING_SPENT } from './budgets.js'
import { checkSpend, hostAllowed, usdMicros } from './limits.js'

const open: BudgetState = {
  agent: { budget: NO_BUDGET, spent: NOTHING_SPENT },
  user: { budget: NO_BUDGET, spent: NOTHING_SPENT },
}

function refusal(...a: Parameters<typeof checkSpend>) {
  try {
    checkSpend(...a)
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

  it('allows anything without limits', () => {
    expect(() => checkSpend(open, null, { amountMicros: 10n ** 15n, host: 'x.org' })).not.toThrow()
  })

  it('hosts: exact names and *. sub-domains, refused before any budget', () => {
    const allowed = ['api.example.com', '*.paid.org']
    expect(hostAllowed(allowed, 'API.example.com')).toBe(true)
    expect(hostAllowed(allowed, 'a.b.paid.org')).toBe(true)
    expect(hostAllowed(allowed, 'paid.org')).toBe(false)
    expect(hostAllowed(allowed, 'evilpaid.org')).toBe(false)
    expect(hostAllowed(allowed, 'example.com')).toBe(false)
    const tight: BudgetState = {
      ...open,
      agent: { budget: { ...NO_BUDGET, perPaymentUsd: '0' }, spent: NOTHING_SPENT },
    }
    expect(refusal(tight, allowed, { amountMicros: 1n, host: 'x.org' })).toMatchObject({
      limit: 'allowedHosts',
      scope: 'agent',
      limitUsd: null,
    })
    expect(refusal(tight, allowed, { amountMicros: 1n, host: 'api.example.com' })).toMatchObject({
      limit: 'perPayment',
    })
  })
})
