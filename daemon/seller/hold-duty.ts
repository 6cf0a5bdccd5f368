import type { Logger } from 'pino'
import type { HoldRecord, HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import { sweepHolds } from '../../src/sdk/x402/seller/auth-capture/sweep.js'
import type { SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import { roundEvery } from '../worker/rounds.js'

/** How often the leader looks for holds to void, unless config `sellerHolds.sweepEverySeconds` says otherwise. */
export const HOLD_SWEEP_EVERY_MS = 30_000

/**
 * The leader's sweep of the platform endpoints' auth-capture holds (docs/platform-api.md
 * "Auth-capture"): every `everyMs` (default HOLD_SWEEP_EVERY_MS), a hold whose paid call never finished, or one
 * left uncaptured near its capture deadline, is voided through the facilitator in process acting
 * for the hold's payTo. Leader only, so two replicas never void the same hold at once (and the
 * store's version guard would refuse the second anyway).
 */
export function holdSweepDuty(p: {
  holds: HoldStore
  facilitatorFor: (payTo: string) => SellerFacilitator
  log: Logger
  everyMs?: number
  onVoided?: (hold: HoldRecord, result: SettleResponse) => Promise<void>
}): () => Promise<() => Promise<void>> {
  return async () => {
    const round = async () => {
      for (const { hold, result } of await sweepHolds({
        store: p.holds,
        facilitatorFor: (r) => p.facilitatorFor(r.payTo),
      })) {
        if (result.success)
          await p
            .onVoided?.(hold, result)
            .catch((err) => p.log.warn({ err }, 'auth-capture: the void webhook could not be queued'))
        else
          p.log.warn(
            { hold: hold.id, reason: result.errorReason },
            'auth-capture: a stale hold could not be voided; the next round retries',
          )
      }
    }
    return roundEvery(round, p.everyMs ?? HOLD_SWEEP_EVERY_MS, p.log, 'auth-capture hold sweep')
  }
}
