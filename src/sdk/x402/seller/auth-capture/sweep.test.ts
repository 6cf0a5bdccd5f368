import { describe, expect, it } from 'vitest'
import type { HoldRecord } from './store.js'
import { HOLD_SWEEP_DEFAULTS, sweepDue } from './sweep.js'

const NOW = 1_800_000_000_000
const hold = (o: Partial<HoldRecord> = {}, mode = 'sync'): HoldRecord => ({
  id: `0x${'ab'.repeat(32)}`,
  network: 'eip155:1',
  requirements: {
    scheme: 'auth-capture',
    network: 'eip155:1',
    asset: '0x',
    amount: '1000',
    payTo: '0x',
    maxTimeoutSeconds: 120,
    extra: { captureMode: mode },
  },
  paymentInfo: {},
  saltNonce: `0x${'01'.repeat(32)}`,
  payer: '0x',
  payTo: '0x',
  maxAmount: '1000',
  status: 'held',
  captured: '0',
  voided: '0',
  refunded: '0',
  captureDeadline: NOW / 1000 + 3600,
  refundDeadline: NOW / 1000 + 86_400,
  authorizeTransaction: '',
  captureTransaction: '',
  tag: null,
  createdAt: NOW,
  updatedAt: NOW,
  version: 1,
  ...o,
})

describe('which holds the sweep voids', () => {
  it('a sync hold or an unanswered authorize only once its request is stale: never one a request may still be serving', () => {
    expect(sweepDue(hold(), NOW + 60_000)).toBe(false)
    expect(sweepDue(hold(), NOW + HOLD_SWEEP_DEFAULTS.staleMs)).toBe(true)
    expect(sweepDue(hold({ status: 'authorizing' }), NOW + HOLD_SWEEP_DEFAULTS.staleMs)).toBe(true)
  })
  it('a deferred hold only near its capture deadline; nothing already finished', () => {
    expect(sweepDue(hold({}, 'deferred'), NOW + HOLD_SWEEP_DEFAULTS.staleMs)).toBe(false)
    expect(sweepDue(hold({}, 'deferred'), NOW + (3600 - HOLD_SWEEP_DEFAULTS.marginSeconds) * 1000)).toBe(true)
    for (const status of ['captured', 'voided', 'failed'] as const)
      expect(sweepDue(hold({ status }), NOW + 86_400_000)).toBe(false)
  })
})
