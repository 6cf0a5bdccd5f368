import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/config/load.js'
import { mppValidBefore } from './mpp.js'
import { validitySeconds } from './quote.js'

/** The validity cap of signed payments: the seller's wish, never more than the cap. */
describe('validity of a signed payment', () => {
  it('takes what the seller asks up to the cap; garbage gets the cap', () => {
    expect(validitySeconds(60, 300)).toBe(60)
    expect(validitySeconds(365 * 86_400, 300)).toBe(300)
    expect(validitySeconds('120', 300)).toBe(120)
    expect(validitySeconds(90.7, 300)).toBe(90)
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '1e9', 'soon', null, undefined, {}])
      expect(validitySeconds(bad, 300)).toBe(300)
  })

  it("MPP: the challenge's expires, at most the cap from now", () => {
    const now = Date.UTC(2026, 0, 1)
    const s = now / 1000
    expect(mppValidBefore(new Date(now + 365 * 86_400_000).toISOString(), 300, now)).toBe(BigInt(s + 300))
    expect(mppValidBefore(new Date(now + 120_000).toISOString(), 300, now)).toBe(BigInt(s + 120))
    expect(mppValidBefore(undefined, 300, now)).toBe(BigInt(s + 300))
    expect(mppValidBefore('not a date', 300, now)).toBe(BigInt(s + 300))
    expect(mppValidBefore(new Date(now - 5_000).toISOString(), 300, now)).toBe(BigInt(s - 5))
  })
})

describe('pay.validitySeconds', () => {
  it('defaults to 300, is set by PARX_PAY_VALIDITY_SECONDS or the file, and stays within 10..3600', () => {
    expect(loadConfig({ env: {}, file: {} }).pay.validitySeconds).toBe(300)
    expect(loadConfig({ env: { PARX_PAY_VALIDITY_SECONDS: '60' }, file: {} }).pay.validitySeconds).toBe(60)
    expect(loadConfig({ env: {}, file: { pay: { validitySeconds: 3600 } } }).pay.validitySeconds).toBe(3600)
    for (const bad of ['5', '3601', '31536000', 'soon'])
      expect(() => loadConfig({ env: { PARX_PAY_VALIDITY_SECONDS: bad }, file: {} })).toThrow(/validitySeconds/)
  })
})
