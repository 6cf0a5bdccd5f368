import { type Address, type Hex, isHex, pad, toHex } from 'viem'
import type { PaymentInfo } from '../../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'
import { parseAddress, uint } from '../batch-settlement/parse.js'

export { parseAddress, uint }

/** A 0x-prefixed 32-byte value (`salt`, `saltNonce`): the binding pins this one spelling. */
export const word = (v: unknown): bigint | undefined =>
  typeof v === 'string' && isHex(v) && v.length === 66 ? BigInt(v) : undefined
export const wordHex = (n: bigint): Hex => pad(toHex(n), { size: 32 })
export const signature = (v: unknown): Hex | undefined =>
  typeof v === 'string' && isHex(v) && v.length > 2 ? v : undefined
const int = (v: unknown, bits: number) => {
  const n = typeof v === 'number' ? (Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined) : uint(v)
  return n !== undefined && n < 2n ** BigInt(bits) ? n : undefined
}

/** A lifecycle payload's `paymentInfo`, the exact struct the escrow call takes. */
export function parsePaymentInfo(v: unknown): PaymentInfo | undefined {
  if (!isRecord(v)) return undefined
  const a = {
    operator: parseAddress(v.operator),
    payer: parseAddress(v.payer),
    receiver: parseAddress(v.receiver),
    token: parseAddress(v.token),
    feeReceiver: parseAddress(v.feeReceiver),
  }
  const maxAmount = int(v.maxAmount, 120)
  const pre = int(v.preApprovalExpiry, 48),
    auth = int(v.authorizationExpiry, 48),
    refund = int(v.refundExpiry, 48)
  const minFeeBps = int(v.minFeeBps, 16),
    maxFeeBps = int(v.maxFeeBps, 16)
  const salt = word(v.salt)
  if (
    Object.values(a).some((x) => x === undefined) ||
    [maxAmount, pre, auth, refund, minFeeBps, maxFeeBps, salt].some((x) => x === undefined)
  )
    return undefined
  return {
    ...(a as Record<keyof typeof a, Address>),
    maxAmount: maxAmount!,
    preApprovalExpiry: Number(pre),
    authorizationExpiry: Number(auth),
    refundExpiry: Number(refund),
    minFeeBps: Number(minFeeBps),
    maxFeeBps: Number(maxFeeBps),
    salt: salt!,
  }
}

/** The wire form of a `PaymentInfo`, as a server persists it to author lifecycle settles later. */
export function paymentInfoWire(i: PaymentInfo) {
  return { ...i, maxAmount: i.maxAmount.toString(), salt: wordHex(i.salt) }
}

export type Erc3009Collect = {
  kind: 'eip3009'
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
}
export type Permit2Collect = {
  kind: 'permit2'
  from: Address
  token: Address
  value: bigint
  spender: Address
  nonce: bigint
  validBefore: bigint
}
/**
 * The client's collect payload: one token authorization naming a collector, its signature and the salt (and saltNonce
 * when bound).
 */
export type CollectPayload = { auth: Erc3009Collect | Permit2Collect; signature: Hex; salt: bigint; saltNonce?: bigint }

export function parseCollect(payload: Record<string, unknown>): CollectPayload | undefined {
  const sig = signature(payload.signature)
  const salt = word(payload.salt)
  const saltNonce = payload.saltNonce === undefined ? undefined : word(payload.saltNonce)
  if (!sig || salt === undefined || (payload.saltNonce !== undefined && saltNonce === undefined)) return undefined
  const a = payload.authorization,
    p = payload.permit2Authorization
  if (isRecord(a) && p === undefined) {
    const from = parseAddress(a.from),
      to = parseAddress(a.to),
      value = uint(a.value),
      validAfter = uint(a.validAfter),
      validBefore = uint(a.validBefore)
    const nonce =
      typeof a.nonce === 'string' && isHex(a.nonce) && a.nonce.length === 66
        ? (a.nonce.toLowerCase() as Hex)
        : undefined
    if (!from || !to || value === undefined || validAfter === undefined || validBefore === undefined || !nonce)
      return undefined
    return {
      auth: { kind: 'eip3009', from, to, value, validAfter, validBefore, nonce },
      signature: sig,
      salt,
      saltNonce,
    }
  }
  if (isRecord(p) && a === undefined && isRecord(p.permitted)) {
    const from = parseAddress(p.from),
      token = parseAddress(p.permitted.token),
      value = uint(p.permitted.amount),
      spender = parseAddress(p.spender)
    const nonce = uint(p.nonce),
      deadline = uint(p.deadline)
    if (!from || !token || value === undefined || !spender || nonce === undefined || deadline === undefined)
      return undefined
    return {
      auth: { kind: 'permit2', from, token, value, spender, nonce, validBefore: deadline },
      signature: sig,
      salt,
      saltNonce,
    }
  }
  return undefined
}
