import { isAddress, isAddressEqual, zeroAddress } from 'viem'
import { BaseError } from '../../../../errors/index.js'
import { AUTH_CAPTURE, AUTH_CAPTURE_V1_1 } from '../../evm/auth-capture/contracts.js'
import { reasons } from '../../reasons.js'
import type { PaymentRequirements } from '../../types.js'
import { isRecord } from '../../wire.js'

/**
 * The windows a seller's auth-capture offer names, in seconds from the 402 that states them. The
 * capture deadline is when the buyer may take its hold back (`reclaim`); the refund deadline is
 * how long the seller may still refund a capture. Both are clamped to these maxima: a buyer's
 * money is held at most a week, and a seller's refund promise lasts at most 30 days.
 */
export const AUTH_CAPTURE_LIMITS = {
  captureDeadlineSeconds: { default: 3600, max: 7 * 86_400 },
  refundDeadlineSeconds: { default: 86_400, max: 30 * 86_400 },
  /**
   * What the capture deadline must lie beyond the payment's own validity, so a sync capture is never refused for
   * lateness.
   */
  marginSeconds: 60,
} as const

/** What a price adds for `scheme: 'auth-capture'`. */
export type AuthCapturePrice = {
  /**
   * `sync` (default): the gate captures (or voids) before the answer goes out. `deferred`: the
   * hold is kept in the hold store and the seller captures later (`captureHold`, ./lifecycle.ts).
   */
  captureMode?: 'sync' | 'deferred'
  /** Seconds from the 402 to the capture deadline (default 3600, at most 7 days). */
  captureDeadlineSeconds?: number
  /**
   * Seconds from the 402 to the refund deadline (default a day, at most 30 days; never before the capture deadline).
   */
  refundDeadlineSeconds?: number
}

type Base = {
  network: string
  asset: string
  amount: string
  payTo: string
  method?: string
  maxTimeoutSeconds?: number
}

const clamp = (v: number | undefined, d: number, min: number, max: number) =>
  Math.min(max, Math.max(min, Math.floor(v ?? d)))

/**
 * The auth-capture requirements for one price, from the facilitator's /supported kind: its
 * capture authorizer (the delegated operator that submits) and receiver authorizer (which consents
 * to the seller's capture, void and refund when the seller's partner key asks), the v1.1 escrow,
 * paymentFlow `escrow`, no fees, and deadlines from now. Never one without a receiver authorizer:
 * the gate could then neither capture nor void in the request, and the hold would sit until the
 * buyer reclaims it.
 */
export function authCaptureRequirements(
  p: Base & AuthCapturePrice,
  network: string,
  x: Record<string, unknown>,
  now: number,
): PaymentRequirements {
  const ra = x.receiverAuthorizer
  if (typeof ra !== 'string' || !isAddress(ra, { strict: false }) || isAddressEqual(ra, zeroAddress)) {
    throw new BaseError(
      'AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED',
      `the facilitator names no receiver authorizer for auth-capture on ${p.network}, so no hold ` +
        `could be captured or voided (set PARX_BATCH_RECEIVER_AUTHORIZER_KEY on a parx facilitator)`,
    )
  }
  const maxTimeoutSeconds = p.maxTimeoutSeconds ?? 120
  const L = AUTH_CAPTURE_LIMITS
  const capture = clamp(
    p.captureDeadlineSeconds,
    L.captureDeadlineSeconds.default,
    maxTimeoutSeconds + L.marginSeconds,
    L.captureDeadlineSeconds.max,
  )
  const refund = clamp(
    p.refundDeadlineSeconds,
    Math.max(capture, L.refundDeadlineSeconds.default),
    capture,
    L.refundDeadlineSeconds.max,
  )
  return {
    scheme: AUTH_CAPTURE,
    network,
    asset: String(x.asset),
    amount: p.amount,
    payTo: p.payTo,
    maxTimeoutSeconds,
    extra: {
      name: x.name,
      version: x.version,
      authCaptureEscrow: x.authCaptureEscrow ?? AUTH_CAPTURE_V1_1.escrow,
      captureAuthorizer: x.captureAuthorizer,
      operatorType: 'delegated',
      receiverAuthorizer: ra,
      paymentFlow: 'escrow',
      captureMode: p.captureMode ?? 'sync',
      captureDeadline: now + capture,
      refundDeadline: now + refund,
      feeRecipient: zeroAddress,
      minFeeBps: 0,
      maxFeeBps: 0,
      assetTransferMethod: p.method ?? 'eip3009',
    },
  }
}

/**
 * The requirements a paid request is held under: ours, with the deadlines the buyer signed (they
 * were ours when its 402 was written, so they differ from a fresh offer's by the time since).
 * Taken only when they are a 402 of ours could have named: every other field equal, the capture
 * deadline no later than a fresh offer's and still far enough ahead that the payment's validity
 * and a capture fit before it, and the two deadlines as far apart as ours.
 */
export function heldRequirements(
  offer: PaymentRequirements,
  accepted: unknown,
  now: number,
): PaymentRequirements | { reason: string; message: string } {
  const a = isRecord(accepted) && isRecord(accepted.extra) ? accepted.extra : undefined
  const o = offer.extra
  const bad = (message: string) => ({ reason: reasons.acDeadlineOrdering, message })
  if (!a) return { reason: reasons.acExtra, message: 'the payment names no auth-capture terms' }
  for (const k of Object.keys(o)) {
    if (k === 'captureDeadline' || k === 'refundDeadline') continue
    const same =
      typeof o[k] === 'string' && typeof a[k] === 'string'
        ? String(o[k]).toLowerCase() === String(a[k]).toLowerCase()
        : o[k] === a[k]
    if (!same) return { reason: reasons.acExtra, message: `extra.${k} is not this seller's` }
  }
  const capture = a.captureDeadline,
    refund = a.refundDeadline
  if (
    typeof capture !== 'number' ||
    typeof refund !== 'number' ||
    !Number.isSafeInteger(capture) ||
    !Number.isSafeInteger(refund)
  )
    return bad('captureDeadline and refundDeadline are whole seconds')
  if (capture > (o.captureDeadline as number)) return bad(`captureDeadline ${capture} is later than this seller offers`)
  if (capture < now + offer.maxTimeoutSeconds + AUTH_CAPTURE_LIMITS.marginSeconds)
    return bad(`captureDeadline ${capture} is too near: ask for fresh terms`)
  if (refund - capture !== (o.refundDeadline as number) - (o.captureDeadline as number))
    return bad('refundDeadline is not as far beyond captureDeadline as this seller offers')
  return { ...offer, extra: { ...o, captureDeadline: capture, refundDeadline: refund } }
}
