import { Counter, type Registry } from 'prom-client'
import type { ClaimReport } from '../../src/sdk/x402/seller/batch-settlement/claim.js'

/** What the leader's claim-and-settle duty records (daemon/seller/batch-settlement/claim-duty.ts), once per round. */
export type ChannelClaimRecorder = {
  /** A round that ran to its end (`report`), or threw (`undefined`). */
  round(report: ClaimReport | undefined): void
}

/**
 * The outcome of a round: `idle` (nothing was due), `ok` (every claim and sweep went through),
 * `failed` (a claim or a sweep was refused: the next round retries it), `error` (it threw).
 */
export const roundOutcome = (r: ClaimReport | undefined): 'idle' | 'ok' | 'failed' | 'error' =>
  !r ? 'error' : r.errors.length > 0 ? 'failed' : r.claims.length === 0 && r.settlements.length === 0 ? 'idle' : 'ok'

/**
 * `parx_channel_claim_rounds_total{outcome}` and `parx_channel_claims_total{outcome}` (channels
 * `claimed` or `failed`): a seller whose channels are never claimed is one whose buyers can
 * withdraw what they spent, so an operator alerts on failed rounds and on claims that stay at 0.
 */
export function channelClaimMetrics(registry: Registry): ChannelClaimRecorder {
  const rounds = new Counter({
    name: 'parx_channel_claim_rounds_total',
    help:
      'Batch-settlement claim-and-settle rounds of the leader by outcome: ' +
      'idle (nothing due), ok, failed (a claim or sweep refused), error (threw)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const channels = new Counter({
    name: 'parx_channel_claims_total',
    help: 'Batch-settlement channels claimed on chain (claimed) or whose claim was refused (failed), by the leader',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  return {
    round(r) {
      rounds.inc({ outcome: roundOutcome(r) })
      if (!r) return
      const claimed = r.claims.reduce((n, c) => n + c.channels, 0)
      if (claimed > 0) channels.inc({ outcome: 'claimed' }, claimed)
      if (r.failedChannels > 0) channels.inc({ outcome: 'failed' }, r.failedChannels)
    },
  }
}
