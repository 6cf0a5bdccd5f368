import { describe, expect, it } from 'vitest'
import { upstreamUsage } from './upstream-usage.js'

const report = (amount: unknown, extra: Record<string, string> = {}) =>
  new Headers({ 'settlement-overrides': JSON.stringify({ amount }), ...extra })

describe("an upstream's usage report on a paid endpoint", () => {
  it('is read in base units, as a percentage or in dollars of the price, and never above the price', () => {
    expect(upstreamUsage(report('400'), 1000n, 6)).toBe('{"amount":"400"}')
    expect(upstreamUsage(report('25%'), 1000n, 6)).toBe('{"amount":"250"}')
    expect(upstreamUsage(report('$0.0003'), 1000n, 6)).toBe('{"amount":"300"}')
    expect(upstreamUsage(report('0'), 1000n, 6)).toBe('{"amount":"0"}')
    // More than held: what is captured is the held price, never more.
    expect(upstreamUsage(report('5000'), 1000n, 6)).toBe('{"amount":"1000"}')
    expect(upstreamUsage(report('150%'), 1000n, 6)).toBe('{"amount":"1000"}')
  })

  it('is absent when not sent or named hop-by-hop, and passed as it came when it cannot be read (the gate refuses it)', () => {
    expect(upstreamUsage(new Headers(), 1000n, 6)).toBeUndefined()
    expect(upstreamUsage(report('400', { connection: 'close, Settlement-Overrides' }), 1000n, 6)).toBeUndefined()
    const bad = new Headers({ 'settlement-overrides': 'not json' })
    expect(upstreamUsage(bad, 1000n, 6)).toBe('not json')
  })
})
