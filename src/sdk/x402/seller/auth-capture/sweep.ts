import type { SettleResponse } from '../../types.js'
import type { SellerFacilitator } from '../facilitator-client.js'
import { voidHold } from './lifecycle.js'
import type { HoldRecord, HoldStore } from './store.js'

export type HoldSweepPolicy = {
  /**
   * A sync hold (or one still `authorizing`) untouched this long is a request that never finished: a crash, or a void
   * that failed. Default 10 minutes.
   */
  staleMs: number
  /**
   * A deferred hold is voided this long before its capture deadline, so the void lands before the buyer's reclaim
   * window opens. Default 5 minutes.
   */
  marginSeconds: number
}

export const HOLD_SWEEP_DEFAULTS: HoldSweepPolicy = { staleMs: 10 * 60_000, marginSeconds: 300 }

/** Whether the sweep voids this hold now. */
export function sweepDue(r: HoldRecord, now: number, p: HoldSweepPolicy = HOLD_SWEEP_DEFAULTS): boolean {
  if (r.status !== 'held' && r.status !== 'authorizing') return false
  const nearDeadline = r.captureDeadline - Math.floor(now / 1000) <= p.marginSeconds
  const deferred = r.requirements.extra.captureMode === 'deferred' && r.status === 'held'
  return nearDeadline || (!deferred && now - r.updatedAt >= p.staleMs)
}

/**
 * Voids what no one will capture (the seller's duty the scheme's security note 2 names): holds
 * whose request never finished (a process stopped between the hold and its capture or void, or a
 * void the facilitator refused), and deferred holds the seller left uncaptured until just before
 * the capture deadline. The buyer gets them back now instead of reclaiming them itself after the
 * deadline. A hold that never landed (`authorizing`, nothing in escrow) is marked failed.
 */
export async function sweepHolds(p: {
  store: HoldStore
  facilitatorFor: (r: HoldRecord) => SellerFacilitator
  now?: number
  policy?: HoldSweepPolicy
}): Promise<Array<{ hold: HoldRecord; result: SettleResponse }>> {
  const now = p.now ?? Date.now()
  const out: Array<{ hold: HoldRecord; result: SettleResponse }> = []
  for (const hold of await p.store.list(['authorizing', 'held'])) {
    if (!sweepDue(hold, now, p.policy)) continue
    out.push({ hold, result: await voidHold({ facilitator: p.facilitatorFor(hold), store: p.store }, hold.id) })
  }
  return out
}
