import { type Address, getAddress, type Hex, isAddress, isHex, pad, toHex } from 'viem'
import { networks } from '../../../../networks/registry.js'
import { authCaptureDeployment } from '../../evm/auth-capture/contracts.js'
import { type PaymentInfo, paymentInfoHash } from '../../evm/auth-capture/payment-info.js'
import type { PaymentRequirements } from '../../types.js'
import { isRecord } from '../../wire.js'

/** A held payment as the seller derives it from the buyer's collect payload, before anything is sent. */
export type CollectedPayment = { id: Hex; info: PaymentInfo; saltNonce: Hex; payer: Address }

const word = (v: unknown): Hex | undefined =>
  typeof v === 'string' && isHex(v) && v.length === 66 ? (v.toLowerCase() as Hex) : undefined
const uint = (v: unknown): bigint | undefined =>
  typeof v === 'string' && /^\d{1,78}$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : undefined

/** The chain id of a CAIP-2 `eip155:<id>` network. */
export const chainIdOf = (network: string): number | undefined => {
  const known = Object.values(networks).find((n) => n.caip2 === network)?.chainId
  if (known) return known
  const m = /^eip155:(\d+)$/.exec(network)
  return m ? Number(m[1]) : undefined
}

/**
 * The escrow's `PaymentInfo` and id of a collect payload under `r` (the binding's appendix: every
 * field from the requirements, the payer, its authorization's expiry and the salt), computed by
 * the seller itself so the hold is recorded under its id before the facilitator is asked to place
 * it. The facilitator's verify has already checked that the payload is this payment (its nonce
 * commits to every field); undefined for a payload that has not the collect shape.
 */
export function collectedPayment(r: PaymentRequirements, payload: unknown): CollectedPayment | undefined {
  if (!isRecord(payload)) return undefined
  const a = isRecord(payload.authorization) ? payload.authorization : undefined
  const p = isRecord(payload.permit2Authorization) ? payload.permit2Authorization : undefined
  const from = a?.from ?? p?.from
  const expiry = uint(a?.validBefore ?? p?.deadline)
  const salt = word(payload.salt),
    saltNonce = word(payload.saltNonce)
  const chainId = chainIdOf(r.network)
  const deployment = authCaptureDeployment(
    typeof r.extra.authCaptureEscrow === 'string' ? r.extra.authCaptureEscrow : undefined,
  )
  const e = r.extra
  if (
    typeof from !== 'string' ||
    !isAddress(from, { strict: false }) ||
    expiry === undefined ||
    !salt ||
    !saltNonce ||
    !chainId ||
    !deployment
  )
    return undefined
  const info: PaymentInfo = {
    operator: getAddress(String(e.captureAuthorizer)),
    payer: getAddress(from),
    receiver: getAddress(r.payTo),
    token: getAddress(r.asset),
    maxAmount: BigInt(r.amount),
    preApprovalExpiry: Number(expiry),
    authorizationExpiry: Number(e.captureDeadline),
    refundExpiry: Number(e.refundDeadline),
    minFeeBps: Number(e.minFeeBps),
    maxFeeBps: Number(e.maxFeeBps),
    feeReceiver: getAddress(String(e.feeRecipient)),
    salt: BigInt(salt),
  }
  return { id: paymentInfoHash(info, chainId, deployment.escrow), info, saltNonce, payer: info.payer }
}

/** `PaymentInfo` as lifecycle payloads carry it (amounts as strings, the salt as 32 bytes). */
export function paymentInfoWire(i: PaymentInfo): Record<string, unknown> {
  return { ...i, maxAmount: i.maxAmount.toString(), salt: pad(toHex(i.salt), { size: 32 }) }
}
