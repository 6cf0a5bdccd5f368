import { Histogram, type Registry } from 'prom-client'
import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import { boundedLabel } from './bounded-label.js'

/** What the facilitator records: its answers, and the size of each settlement batch it sends. */
export type FacilitatorRecorder = {
  call(
    labels: { operation: 'verify' | 'settle'; network: string; scheme: string; outcome: string },
    seconds: number,
  ): void
  /** One settlement transaction left carrying `size` payments (daemon/facilitator/evm/batcher.ts). */
  batch(network: string, size: number): void
}

/** `parx_facilitator_request_duration_seconds` and `parx_facilitator_settlement_batch_size`. */
export function facilitatorMetrics(registry: Registry): FacilitatorRecorder {
  const calls = new Histogram({
    name: 'parx_facilitator_request_duration_seconds',
    help: 'x402 facilitator verify and settle calls by network, scheme and outcome, and how long they took',
    labelNames: ['operation', 'network', 'scheme', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  })
  const batches = new Histogram({
    name: 'parx_facilitator_settlement_batch_size',
    help: 'Payments carried by each settlement transaction the facilitator sent, by network',
    labelNames: ['network'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  })
  return {
    call: (l, seconds) => calls.observe(l, seconds),
    batch: (network, size) => batches.observe({ network }, size),
  }
}

type Core = { verify(p: Payment): Promise<VerifyResponse>; settle(p: Payment): Promise<SettleResponse> }

/** verify: valid | invalid | error (it threw). */
export const verifyOutcome = (r: VerifyResponse): string => (r.isValid ? 'valid' : 'invalid')
/** settle: success | pending (still waiting for its receipt) | failed | error (it threw). */
export const settleOutcome = (r: SettleResponse): string =>
  r.success ? 'success' : r.errorReason === reasons.settlementPending ? 'pending' : 'failed'

/**
 * The facilitator `f` with its verify and settle timed and counted. Networks and schemes come from
 * the request, so their labels are bounded (daemon/metrics/bounded-label.ts).
 */
export function instrumentFacilitator<T extends Core>(f: T, rec: FacilitatorRecorder): T {
  const network = boundedLabel()
  const scheme = boundedLabel(8)
  const timed =
    <R>(operation: 'verify' | 'settle', outcome: (r: R) => string, call: (p: Payment) => Promise<R>) =>
    async (p: Payment): Promise<R> => {
      const t0 = performance.now()
      let label = 'error'
      try {
        const r = await call(p)
        label = outcome(r)
        return r
      } finally {
        rec.call(
          { operation, network: network(p.network), scheme: scheme(p.scheme), outcome: label },
          (performance.now() - t0) / 1000,
        )
      }
    }
  return {
    ...f,
    verify: timed('verify', verifyOutcome, (p) => f.verify(p)),
    settle: timed('settle', settleOutcome, (p) => f.settle(p)),
  }
}
