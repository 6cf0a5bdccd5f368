import { describe, expect, it } from 'vitest'
import { createAlertRuleBody } from '../../../sdk/platform/alerts.js'
import { minutesArg, ruleBody } from './add.js'

const AGENT = '11111111-2222-4333-8444-555555555555'

/** `parx alerts add`'s flags to the contract's body: one kind, only its flags; what the daemon's schema accepts. */
describe('parx alerts add flags', () => {
  it('builds each kind the contract takes', () => {
    const bodies = [
      ruleBody({ budget: '80', window: 'month' }),
      ruleBody({ budget: '50', window: 'day', agent: AGENT, of: 'agent' }),
      ruleBody({ paymentAbove: '5' }),
      ruleBody({ newPayee: true, of: 'user' }),
      ruleBody({ refusals: '3', within: '10m' }),
      ruleBody({ spendRate: '3' }),
    ]
    expect(bodies).toEqual([
      { kind: 'budget', percent: 80, window: 'month', agentId: undefined },
      { kind: 'budget', percent: 50, window: 'day', agentId: AGENT, of: 'agent' },
      { kind: 'payment_above', usd: '5', agentId: undefined },
      { kind: 'new_payee', agentId: undefined, of: 'user' },
      { kind: 'refusals', count: 3, withinMinutes: 10, agentId: undefined },
      { kind: 'spend_rate', factor: '3', period: 'day', agentId: undefined },
    ])
    for (const b of bodies) expect(createAlertRuleBody.safeParse(b).success).toBe(true)
  })

  it('refuses as usage: no kind, two kinds, a flag of another kind, a missing window, bad numbers', () => {
    const usage = (o: Parameters<typeof ruleBody>[0]) => {
      try {
        ruleBody(o)
      } catch (e) {
        return (e as { code?: string }).code
      }
      return 'accepted'
    }
    expect(usage({})).toBe('USAGE')
    expect(usage({ budget: '80', window: 'month', newPayee: true })).toBe('USAGE')
    expect(usage({ budget: '80' })).toBe('USAGE')
    expect(usage({ paymentAbove: '5', window: 'day' })).toBe('USAGE')
    expect(usage({ budget: '180', window: 'day' })).toBe('USAGE')
    expect(usage({ refusals: '3' })).toBe('USAGE')
    expect(usage({ spendRate: '2.0001' })).toBe('USAGE')
    expect(usage({ paymentAbove: 'none' })).toBe('USAGE')
  })

  it('reads --within as minutes', () => {
    expect([minutesArg('10m'), minutesArg('2h'), minutesArg('1d'), minutesArg('15')]).toEqual([10, 120, 1440, 15])
    expect(() => minutesArg('8d')).toThrow()
    expect(() => minutesArg('0m')).toThrow()
    expect(() => minutesArg('10s')).toThrow()
  })
})
