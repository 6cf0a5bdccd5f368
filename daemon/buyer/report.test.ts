import { describe, expect, it } from 'vitest'
import { addDecimals, aggregateHolds, aggregateSpends, type HoldReportRow, type ReportRow } from './report.js'

const at = (iso: string) => Date.parse(iso)
const row = (r: Partial<ReportRow>): ReportRow => ({
  kind: 'pay',
  state: 'confirmed',
  token: 'PUSD',
  amount: '0.01',
  amount_micros: 10_000,
  host: 'a.example',
  created_at: at('2026-11-01T10:00:00Z'),
  ...r,
})

describe('aggregateSpends', () => {
  it('totals per UTC day, per host (pay only), per token (in its units) and per kind; released left out, reserved pending', () => {
    const r = aggregateSpends([
      row({}),
      row({ amount: '0.02', amount_micros: '20000', host: 'b.example', created_at: at('2026-11-01T23:59:59.999Z') }),
      row({ state: 'reserved', amount: '0.5', amount_micros: 500_000, created_at: at('2026-11-02T00:00:00Z') }),
      row({
        kind: 'send',
        host: null,
        amount: '1.5',
        amount_micros: 1_500_000,
        token: 'USDC',
        created_at: at('2026-11-02T08:00:00Z'),
      }),
      row({ kind: 'swap', host: null, amount: '0.333333333333333333', amount_micros: 333_334, token: 'XUSD' }),
      row({ state: 'released', amount: '9', amount_micros: 9_000_000 }),
    ])
    expect(r.total).toEqual({ count: 5, usd: '2.363334', pending: 1 })
    expect(r.byDay).toEqual([
      { day: '2026-11-01', count: 3, usd: '0.363334', pending: 0 },
      { day: '2026-11-02', count: 2, usd: '2', pending: 1 },
    ])
    expect(r.byHost).toEqual([
      { host: 'a.example', count: 2, usd: '0.51', pending: 1 },
      { host: 'b.example', count: 1, usd: '0.02', pending: 0 },
    ])
    expect(r.byToken).toEqual([
      { token: 'USDC', amount: '1.5', count: 1, usd: '1.5', pending: 0 },
      { token: 'PUSD', amount: '0.53', count: 3, usd: '0.53', pending: 1 },
      { token: 'XUSD', amount: '0.333333333333333333', count: 1, usd: '0.333334', pending: 0 },
    ])
    expect(r.byKind.map((k) => [k.kind, k.count, k.usd])).toEqual([
      ['send', 1, '1.5'],
      ['pay', 3, '0.53'],
      ['swap', 1, '0.333334'],
    ])
  })

  it('an empty window is zero everywhere', () => {
    expect(aggregateSpends([])).toEqual({
      total: { count: 0, usd: '0', pending: 0 },
      byDay: [],
      byHost: [],
      byToken: [],
      byKind: [],
    })
  })
})

describe('aggregateHolds', () => {
  const hold = (h: Partial<HoldReportRow>): HoldReportRow => ({
    token: 'USDC',
    decimals: 6,
    status: 'settled',
    max_amount: '1000',
    captured: '0',
    voided: '0',
    refunded: '0',
    reclaimed: '0',
    ...h,
  })
  it('sums per token in base units, by symbol; only a hold still held counts as holding', () => {
    expect(
      aggregateHolds([
        hold({ status: 'held', captured: '0' }),
        hold({ status: 'held', max_amount: '3000', captured: '1000' }),
        hold({ captured: '400', voided: '600', refunded: '400' }),
        hold({ reclaimed: '1000' }),
        hold({ token: 'PUSD', decimals: 18, max_amount: '10000000000000000', captured: '10000000000000000' }),
      ]),
    ).toEqual([
      {
        token: 'PUSD',
        count: 1,
        held: '0.01',
        holding: '0',
        captured: '0.01',
        voided: '0',
        refunded: '0',
        reclaimed: '0',
      },
      {
        token: 'USDC',
        count: 4,
        held: '0.006',
        holding: '0.003',
        captured: '0.0014',
        voided: '0.0006',
        refunded: '0.0004',
        reclaimed: '0.001',
      },
    ])
    expect(aggregateHolds([])).toEqual([])
  })
})

describe('addDecimals', () => {
  it('adds exactly, whatever the places', () => {
    expect(addDecimals('0', '0.1')).toBe('0.1')
    expect(addDecimals('0.1', '0.2')).toBe('0.3')
    expect(addDecimals('0.05', '0.95')).toBe('1')
    expect(addDecimals('12', '3')).toBe('15')
    expect(addDecimals('0.000000000000000001', '1.5')).toBe('1.500000000000000001')
  })
})
