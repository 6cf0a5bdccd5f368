import { type Address, type Hex, isAddressEqual, zeroAddress } from 'viem'
import { boundSalt, type PaymentInfo, paymentInfoHash } from '../../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Failure, Resolved } from '../../method.js'
import { parsePaymentInfo, word } from './parse.js'
import { readTerms, relaysLifecycle, type Terms } from './terms.js'

export const LIFECYCLE = ['capture', 'void', 'refund'] as const
export type LifecycleType = (typeof LIFECYCLE)[number]

/** A lifecycle payload past the checks every operation shares. */
export type Lifecycle = { type: LifecycleType; t: Terms; info: PaymentInfo; hash: Hex; idempotencyKey?: string }

/** The wire field naming one lifecycle operation: a retry with the same key is answered the first outcome. */
export const IDEMPOTENCY_FIELD = 'idempotencyKey'
const KEY = /^[\x21-\x7e]{1,128}$/

/**
 * The binding's lifecycle checks shared by capture, void and refund ("Verification: lifecycle
 * payloads", steps 1-3, after the extra and operator checks): relayed only with a receiver
 * authorizer; capture and void only under paymentFlow escrow; the payment's operator is ours;
 * the salt reopens to the advertised receiver authorizer (there is no client signature here to
 * enforce it); every other field is what the requirements dictate.
 */
export function readLifecycle(p: Resolved, operatorAccount: Address): Lifecycle | Failure {
  const type = p.payload.type as LifecycleType
  if (!LIFECYCLE.includes(type))
    return { reason: reasons.acPayloadType, message: `payload.type must be one of ${LIFECYCLE.join(', ')}` }
  const t = readTerms(p, operatorAccount)
  if ('reason' in t) return t
  if (!relaysLifecycle(t))
    return {
      reason: reasons.acLifecycleNotRelayed,
      message: 'a route without receiverAuthorizer is collect-only: its lifecycle runs out of band',
    }
  if (type !== 'refund' && t.flow !== 'escrow')
    return {
      reason: reasons.acPayloadType,
      message: `paymentFlow authorization places no hold: there is nothing to ${type}`,
    }
  const info = parsePaymentInfo(p.payload.paymentInfo)
  const saltNonce = word(p.payload.saltNonce)
  if (!info || saltNonce === undefined)
    return {
      reason: reasons.acPayloadFormat,
      message: 'a lifecycle payload carries paymentInfo (the escrow struct) and a 32-byte saltNonce',
    }
  const key = p.payload[IDEMPOTENCY_FIELD]
  if (key !== undefined && (typeof key !== 'string' || !KEY.test(key)))
    return { reason: reasons.acIdempotencyKey, message: `${IDEMPOTENCY_FIELD} is 1 to 128 printable ASCII characters` }
  const payer = info.payer
  if (!isAddressEqual(info.operator, t.operator))
    return {
      reason: reasons.acOperatorMismatch,
      message: `paymentInfo.operator ${info.operator} is not captureAuthorizer ${t.operator}`,
      payer,
    }
  if (boundSalt(t.receiverAuthorizer, zeroAddress, saltNonce) !== info.salt) {
    return {
      reason: reasons.acSaltBindingMismatch,
      message: `paymentInfo.salt is not the commitment to receiver authorizer ${t.receiverAuthorizer} and saltNonce`,
      payer,
    }
  }
  const r = p.requirements
  const differs = !isAddressEqual(info.receiver, r.payTo as Address)
    ? 'receiver (payTo)'
    : !isAddressEqual(info.token, r.asset as Address)
      ? 'token (asset)'
      : info.maxAmount !== BigInt(r.amount)
        ? 'maxAmount (amount)'
        : info.authorizationExpiry !== t.captureDeadline
          ? 'authorizationExpiry (captureDeadline)'
          : info.refundExpiry !== t.refundDeadline
            ? 'refundExpiry (refundDeadline)'
            : info.minFeeBps !== t.minFeeBps || info.maxFeeBps !== t.maxFeeBps
              ? 'fee bounds'
              : !isAddressEqual(info.feeReceiver, t.feeRecipient)
                ? 'feeReceiver (feeRecipient)'
                : undefined
  if (differs)
    return {
      reason: reasons.acRequirementsMismatch,
      message: `paymentInfo's ${differs} is not what the requirements state`,
      payer,
    }
  return {
    type,
    t,
    info,
    hash: paymentInfoHash(info, p.spec.chainId!, t.deployment.escrow),
    ...(key !== undefined ? { idempotencyKey: key as string } : {}),
  }
}
