import type { Logger } from 'pino'
import {
  type ChannelSettlement,
  type ClaimFacilitator,
  type ClaimPolicy,
  type ClaimReport,
  claimAndSettle,
} from '../../../src/sdk/x402/seller/batch-settlement/claim.js'
import type { ChannelStore } from '../../../src/sdk/x402/seller/batch-settlement/store.js'
import type { ChannelClaimRecorder } from '../../metrics/channel-claims.js'
import { roundEvery } from '../../worker/rounds.js'

export type ChannelClaimDutyParameters = {
  channels: ChannelStore
  /**
   * The daemon's own facilitator, in process (../paid-facilitator.ts): a worker serves no /facilitator route, and off
   * the local profile that route wants a partner key.
   */
  facilitator: ClaimFacilitator
  policy: ClaimPolicy
  everyMs: number
  log: Logger
  /** Told each receiver's sweep (success or not), once per round it happened in: the sellers' webhooks. */
  onSettled?: (s: ChannelSettlement) => Promise<void>
  /** Each round's outcome (daemon/metrics/channel-claims.ts). */
  metrics?: ChannelClaimRecorder
}

/**
 * The leader's claim-and-settle of the batch-settlement channels the daemon serves as a seller
 * (docs/platform-api.md "Batch settlement"): every `everyMs`, the groups the policy says are due
 * are claimed (one transaction per group of up to 100 channels) and each receiver's claimed funds
 * swept to it. Run by the leader only, so replicas never claim the same vouchers twice; a round
 * that fails is retried by the next (claims are idempotent on chain: cumulative totals).
 */
export function channelClaimDuty(p: ChannelClaimDutyParameters): () => Promise<() => Promise<void>> {
  return async () => {
    const round = async () => {
      let report: ClaimReport | undefined
      try {
        report = await claimAndSettle({ store: p.channels, facilitator: p.facilitator, policy: p.policy })
      } finally {
        p.metrics?.round(report)
      }
      for (const e of report.errors)
        p.log.warn({ error: e }, 'batch-settlement claim-and-settle: a step failed; the next round retries')
      for (const s of report.settlements)
        await p
          .onSettled?.(s)
          .catch((err) => p.log.warn({ err }, 'batch-settlement: the settlement webhook could not be queued'))
    }
    return roundEvery(round, p.everyMs, p.log, 'batch-settlement claim-and-settle')
  }
}
