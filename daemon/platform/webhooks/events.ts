import { createHash } from 'node:crypto'
import type { SettleResponse } from '../../../src/sdk/x402/types.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import type { EndpointRow } from '../endpoints.js'
import type { WebhookEvent } from './queue.js'

/** The event types: the outcome of one settlement of a paid call. */
export const WEBHOOK_EVENTS = { settled: 'settlement.succeeded', pending: 'settlement.pending', failed: 'settlement.failed' } as const

export type SettlementOutcome = {
  endpoint: EndpointRow
  paidUrl: string
  /** The payment's own bytes (its signed authorization): what makes the outcome unique. */
  payment: unknown
  protocol: 'x402' | 'mpp'
  result: Pick<SettleResponse, 'success' | 'errorReason' | 'errorMessage' | 'payer' | 'transaction' | 'network'>
  /**
   * A batch-settlement sweep (daemon/seller/claim-duty.ts): what it moved for this endpoint, in
   * token units, and how many channels it came from. Absent: one paid call at the endpoint's price.
   */
  channels?: { amount: string; count: number; claimTransaction: string }
}

/**
 * The event for one settlement outcome. Its key is the payment's hash and the outcome type, so
 * the same outcome is queued once however often it is reported, while a payment that failed and
 * then settled on a retry yields both events.
 */
export function settlementEvent(o: SettlementOutcome, now = Date.now()): WebhookEvent {
  const r = o.result
  const type = r.success ? WEBHOOK_EVENTS.settled : r.errorReason === reasons.settlementPending ? WEBHOOK_EVENTS.pending : WEBHOOK_EVENTS.failed
  const paymentHash = createHash('sha256').update(JSON.stringify(o.payment ?? null)).digest('hex')
  const e = o.endpoint
  return {
    endpointId: e.id,
    key: `${e.id}:${paymentHash}:${type}`,
    type,
    body: (id) => JSON.stringify({
      id, type, createdAt: new Date(now).toISOString(),
      data: {
        endpointId: e.id, resource: o.paidUrl, protocol: o.protocol, network: e.network, caip2: r.network || null, token: e.token, amount: e.price,
        payTo: e.pay_to, payer: r.payer || null, transaction: r.transaction || null, success: r.success,
        errorReason: r.errorReason ?? null, errorMessage: r.errorMessage ?? null, paymentHash,
        ...(o.channels ? { amount: o.channels.amount, scheme: 'batch-settlement', channels: o.channels.count, claimTransaction: o.channels.claimTransaction } : {}),
      },
    }),
  }
}
