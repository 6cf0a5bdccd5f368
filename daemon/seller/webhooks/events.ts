import { createHash } from 'node:crypto'
import { networks } from '../../../src/networks/registry.js'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import type { SettleResponse } from '../../../src/sdk/x402/types.js'
import { isRecord } from '../../../src/sdk/x402/wire.js'
import type { EndpointRow } from '../endpoints.js'
import type { WebhookEvent } from './queue.js'

/** The event types: the outcome of one settlement of a paid call. */
export const WEBHOOK_EVENTS = {
  settled: 'settlement.succeeded',
  pending: 'settlement.pending',
  failed: 'settlement.failed',
} as const

/**
 * auth-capture's lifecycle, one event per operation that moved money (src/sdk/x402/seller/auth-capture/):
 * the hold placed, the capture (with what was voided beside it), a void, a refund.
 */
export const AUTH_CAPTURE_EVENTS = {
  authorize: 'payment.authorized',
  capture: 'payment.captured',
  void: 'payment.voided',
  refund: 'payment.refunded',
} as const
type Operation = keyof typeof AUTH_CAPTURE_EVENTS

export type SettlementOutcome = {
  endpoint: EndpointRow
  paidUrl: string
  /** The payment's own bytes (its signed authorization): what makes the outcome unique. */
  payment: unknown
  protocol: 'x402' | 'mpp'
  result: Pick<
    SettleResponse,
    'success' | 'errorReason' | 'errorMessage' | 'payer' | 'transaction' | 'network' | 'amount' | 'extra'
  >
  /**
   * A batch-settlement sweep (daemon/seller/batch-settlement/claim-duty.ts): what it moved for this endpoint, in
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
  const operation =
    isRecord(r.extra) && typeof r.extra.operation === 'string' && r.extra.operation in AUTH_CAPTURE_EVENTS
      ? (r.extra.operation as Operation)
      : undefined
  if (operation && r.success) return authCaptureEvent(o, operation, now)
  const type = r.success
    ? WEBHOOK_EVENTS.settled
    : r.errorReason === reasons.settlementPending
      ? WEBHOOK_EVENTS.pending
      : WEBHOOK_EVENTS.failed
  const paymentHash = createHash('sha256')
    .update(JSON.stringify(o.payment ?? null))
    .digest('hex')
  const e = o.endpoint
  return {
    endpointId: e.id,
    key: `${e.id}:${paymentHash}:${type}`,
    type,
    body: (id) =>
      JSON.stringify({
        id,
        type,
        createdAt: new Date(now).toISOString(),
        data: {
          endpointId: e.id,
          resource: o.paidUrl,
          protocol: o.protocol,
          network: e.network,
          caip2: r.network || null,
          token: e.token,
          amount: e.price,
          payTo: e.pay_to,
          payer: r.payer || null,
          transaction: r.transaction || null,
          success: r.success,
          errorReason: r.errorReason ?? null,
          errorMessage: r.errorMessage ?? null,
          paymentHash,
          ...(o.channels
            ? {
                amount: o.channels.amount,
                scheme: 'batch-settlement',
                channels: o.channels.count,
                claimTransaction: o.channels.claimTransaction,
              }
            : {}),
        },
      }),
  }
}

/**
 * One auth-capture operation that succeeded: its type names the operation, `amount` what it moved
 * (held, captured, voided or refunded, in token units), `paymentId` the escrow's id of the payment
 * (what `parx endpoint refund` takes). Keyed by the operation's transaction, so two captures of one
 * hold are two events and a reported one is queued once.
 */
function authCaptureEvent(o: SettlementOutcome, operation: Operation, now: number): WebhookEvent {
  const r = o.result
  const e = o.endpoint
  const extra = (r.extra ?? {}) as Record<string, unknown>
  const decimals = networks[e.network]?.tokens.find((t) => t.symbol === e.token)?.decimals ?? 0
  const units = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? fromBaseUnits(BigInt(v), decimals) : '0')
  const moved = operation === 'void' ? extra.voided : r.amount
  const type = AUTH_CAPTURE_EVENTS[operation]
  return {
    endpointId: e.id,
    key: `${e.id}:${String(extra.paymentInfoHash ?? '')}:${type}:${r.transaction}`,
    type,
    body: (id) =>
      JSON.stringify({
        id,
        type,
        createdAt: new Date(now).toISOString(),
        data: {
          endpointId: e.id,
          resource: o.paidUrl,
          protocol: o.protocol,
          scheme: 'auth-capture',
          network: e.network,
          caip2: r.network || null,
          token: e.token,
          amount: units(moved),
          ...(operation === 'capture' ? { voided: units(extra.voided) } : {}),
          paymentId: extra.paymentInfoHash ?? null,
          payTo: e.pay_to,
          payer: r.payer || null,
          transaction: r.transaction || null,
          success: true,
        },
      }),
  }
}
