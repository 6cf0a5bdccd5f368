import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem'
import { type Reason, reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import { isRecord } from '../wire.js'

/** `{signature, authorization}` with every field parsed; shared by eip3009 and erc2612. */
export type EvmAuthorization = {
  signature: Hex
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  /** eip3009: a random bytes32; erc2612: the token's permit nonce as a decimal string. */
  nonce: string
  spender?: Address
}

export type Failure = { reason: Reason; message: string }

/** Seconds a payment must still be valid when checked, as the reference facilitator requires. */
export const MIN_VALIDITY_SECONDS = 6n
/** Clock skew tolerated between payer and facilitator when a deadline is checked against maxTimeoutSeconds. */
export const DEADLINE_SKEW_SECONDS = 60n

const uint = (v: unknown) =>
  typeof v === 'string' && /^\d{1,78}$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : undefined
const address = (v: unknown) => (typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined)

/** Parses the payload's fields, or names the first one that is missing or malformed. */
export function parseEvmAuthorization(
  payload: Record<string, unknown>,
  nonceKind: 'bytes32' | 'uint',
): EvmAuthorization | Failure {
  const a = payload.authorization
  const bad = (field: string): Failure => ({
    reason: reasons.invalidPayload,
    message: `payload.${field} is missing or malformed`,
  })
  if (typeof payload.signature !== 'string' || !isHex(payload.signature) || payload.signature.length < 132)
    return bad('signature')
  if (!isRecord(a)) return bad('authorization')
  const from = address(a.from)
  const to = address(a.to)
  const value = uint(a.value)
  const validAfter = uint(a.validAfter ?? '0')
  const validBefore = uint(a.validBefore)
  if (!from) return bad('authorization.from')
  if (!to) return bad('authorization.to')
  if (value === undefined) return bad('authorization.value')
  if (validAfter === undefined) return bad('authorization.validAfter')
  if (validBefore === undefined) return bad('authorization.validBefore')
  const nonce = a.nonce
  const nonceOk =
    nonceKind === 'bytes32'
      ? typeof nonce === 'string' && isHex(nonce) && nonce.length === 66
      : uint(nonce) !== undefined
  if (!nonceOk) return bad('authorization.nonce')
  let spender: Address | undefined
  if (a.spender !== undefined) {
    spender = address(a.spender)
    if (!spender) return bad('authorization.spender')
  }
  return {
    signature: payload.signature as Hex,
    from,
    to,
    value,
    validAfter,
    validBefore,
    nonce: String(nonce),
    spender,
  }
}

export type WindowRules = {
  now: bigint
  /** erc2612 takes at least the price (the permit is an allowance); eip3009 moves exactly the signed value. */
  value: 'exact' | 'at-least'
  /** Reject deadlines further out than the seller's maxTimeoutSeconds (plus skew). */
  boundDeadline: boolean
  /** erc2612: the facilitator's signer, which the permit must name as spender. */
  spender?: Address
}

/** The checks that need no chain: recipient, spender, amount and the validity window. */
export function checkAuthorization(
  a: EvmAuthorization,
  r: PaymentRequirements,
  rules: WindowRules,
): Failure | undefined {
  if (!isAddress(r.payTo, { strict: false }) || getAddress(r.payTo) !== a.to) {
    return {
      reason: reasons.evmRecipientMismatch,
      message: `authorization.to ${a.to} is not the seller's payTo ${r.payTo}`,
    }
  }
  if (rules.spender && a.spender && a.spender !== rules.spender) {
    return {
      reason: reasons.evmSpenderMismatch,
      message: `the permit names spender ${a.spender}; this facilitator's signer is ${rules.spender}`,
    }
  }
  const price = BigInt(r.amount)
  if (rules.value === 'exact' ? a.value !== price : a.value < price) {
    const want = rules.value === 'exact' ? `exactly ${price}` : `at least ${price}`
    return { reason: reasons.evmValueMismatch, message: `authorization.value ${a.value} must be ${want}` }
  }
  if (a.validBefore < rules.now + MIN_VALIDITY_SECONDS) {
    return {
      reason: reasons.evmValidBefore,
      message:
        `validBefore ${a.validBefore} has passed or is less ` +
        `than ${MIN_VALIDITY_SECONDS} s away (now ${rules.now})`,
    }
  }
  if (rules.boundDeadline && a.validBefore > rules.now + BigInt(r.maxTimeoutSeconds) + DEADLINE_SKEW_SECONDS) {
    return {
      reason: reasons.evmValidBefore,
      message: `validBefore ${a.validBefore} is further out than maxTimeoutSeconds (${r.maxTimeoutSeconds} s) allows`,
    }
  }
  if (a.validAfter > rules.now) {
    return { reason: reasons.evmValidAfter, message: `validAfter ${a.validAfter} is in the future (now ${rules.now})` }
  }
  return undefined
}

export const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))
