import { afterAll, describe, expect, it, vi } from 'vitest'

// The page module reads its fixed elements when loaded (./state.ts); the text itself needs no page.
vi.stubGlobal('document', { getElementById: () => ({}) })
// The test projects share one process between files: no other file finds a `document`.
afterAll(() => void vi.unstubAllGlobals())
const { holdText } = await import('./payments-list.js')

const hold = {
  id: '0x01',
  status: 'settled' as const,
  held: '0.001',
  holding: '0',
  captured: '0',
  voided: '0',
  refunded: '0',
  reclaimed: '0',
  captureDeadline: '2026-11-29T05:00:00.000Z',
  refundDeadline: '2026-11-30T05:00:00.000Z',
}

describe("the dashboard's payments list: an auth-capture pay's hold under its amount", () => {
  it('says what was held and captured, and only what came back or is still held', () => {
    expect(holdText({ ...hold, captured: '0.0004', voided: '0.0006' })).toBe(
      'hold 0.001: captured 0.0004, voided 0.0006',
    )
    expect(holdText({ ...hold, captured: '0.001', refunded: '0.0007' })).toBe(
      'hold 0.001: captured 0.001, refunded 0.0007',
    )
    expect(holdText({ ...hold, reclaimed: '0.001' })).toBe('hold 0.001: captured 0, reclaimed 0.001')
    expect(holdText({ ...hold, status: 'held', holding: '0.001' })).toBe('hold 0.001: captured 0, still held 0.001')
  })
})
