import { describe, expect, it } from 'vitest'
import { historyQuery, timeArg } from './history-args.js'

describe('history flags', () => {
  it('--since takes a date, a time, or a span back from now', () => {
    const now = Date.parse('2026-11-27T12:00:00Z')
    expect(timeArg('2026-11-01', '--since', now)).toBe('2026-11-01')
    expect(timeArg('2026-11-01T08:00:00Z', '--since', now)).toBe('2026-11-01T08:00:00Z')
    expect(timeArg('7d', '--since', now)).toBe('2026-11-20T12:00:00.000Z')
    expect(timeArg('24h', '--since', now)).toBe('2026-11-26T12:00:00.000Z')
    expect(timeArg('30m', '--since', now)).toBe('2026-11-27T11:30:00.000Z')
    expect(() => timeArg('yesterday', '--since', now)).toThrow(/--since 'yesterday' is not a date/)
    expect(() => timeArg('2026-13-45', '--until', now)).toThrow(/--until/)
  })

  it('--kind and --host are checked before any request', () => {
    expect(historyQuery({ kind: 'PAY', host: 'API.example.com' })).toEqual({ kind: 'pay', host: 'api.example.com' })
    expect(() => historyQuery({ kind: 'refund' })).toThrow(/--kind 'refund' is not one of pay, send, swap/)
    expect(() => historyQuery({ host: 'https://x.test/a' })).toThrow(/--host/)
  })
})

describe('a moment without a zone', () => {
  it('is UTC, whatever the local time zone', async () => {
    const { parseMoment } = await import('../../sdk/platform/moment.js')
    expect(parseMoment('2026-11-01')).toBe(Date.UTC(2026, 10, 1))
    expect(parseMoment('2026-11-01T12:30')).toBe(Date.UTC(2026, 10, 1, 12, 30))
    expect(parseMoment('2026-11-01 12:30:05.5')).toBe(Date.UTC(2026, 10, 1, 12, 30, 5, 500))
    expect(parseMoment('2026-11-01T12:30:00+02:00')).toBe(Date.UTC(2026, 10, 1, 10, 30))
    expect(parseMoment('2026-11-01T12')).toBeNaN()
    expect(parseMoment('1 Nov 2026')).toBeNaN()
  })
})
