import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { SETTLEMENT_OVERRIDES_HEADER, settleAmount, takeSettlementAmount } from './usage.js'

const response = () => new ServerResponse(new IncomingMessage(new Socket()))

describe('a metered handler reporting what it used', () => {
  it('is read in base units, as a percentage of the maximum or in dollars, and the header is taken off', () => {
    const cases: Array<[string | bigint, string]> = [
      ['1500', '1500'],
      [1500n, '1500'],
      ['25%', '12500'],
      ['33.33%', '16665'],
      ['$0.015', '15000'],
      ['0', '0'],
    ]
    for (const [reported, settled] of cases) {
      const res = response()
      settleAmount(res, reported)
      expect(takeSettlementAmount(res, '50000', 6)).toBe(settled)
      expect(res.getHeader(SETTLEMENT_OVERRIDES_HEADER)).toBeUndefined()
    }
  })

  it('charges the maximum when nothing was reported, and names what it cannot read', () => {
    expect(takeSettlementAmount(response(), '50000')).toBe('50000')
    const bad = (raw: string, decimals?: number) => {
      const res = response()
      res.setHeader(SETTLEMENT_OVERRIDES_HEADER, raw)
      return takeSettlementAmount(res, '50000', decimals)
    }
    expect(bad('not json')).toMatchObject({ invalid: expect.stringContaining('not JSON') })
    expect(bad('{"amount":5}')).toMatchObject({ invalid: expect.stringContaining('no string amount') })
    expect(bad('{"amount":"-3"}')).toMatchObject({ invalid: expect.stringContaining("'-3'") })
    // Dollars need the asset's decimals.
    expect(bad('{"amount":"$1"}')).toMatchObject({ invalid: expect.stringContaining('known asset') })
  })
})
