import { getAddress, type Hex, isAddress, isAddressEqual, toHex, zeroAddress } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { AUTH_CAPTURE, authCaptureDeployment } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import {
  boundSalt,
  type PaymentInfo,
  paymentInfoHash,
  signatureNonce,
} from '../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import { AUTH_CAPTURE_LIMITS } from '../../../src/sdk/x402/seller/auth-capture/terms.js'
import type { PaymentRequirements, SettleResponse } from '../../../src/sdk/x402/types.js'
import { decodeHeader, isRecord, headers as x402Headers } from '../../../src/sdk/x402/wire.js'
import { type HoldOutcome, type HoldTerms, isTxHash, type QuoteContext, validitySeconds } from './quote.js'

/**
 * The furthest deadlines an agent signs into an auth-capture hold, seconds from now: the capture
 * deadline (`authorizationExpiry`: until then the seller may capture and the agent cannot reclaim)
 * at most a week, the refund deadline at most 30 days: the seller gate's own maxima
 * (src/sdk/x402/seller/auth-capture/terms.ts), so a parx seller is always payable. An offer asking
 * more is refused before anything is signed (AUTH_CAPTURE_TERMS_REFUSED): unlike a validity, a
 * deadline is part of the payment's identity and cannot be shortened by the payer.
 */
export const AGENT_HOLD_LIMITS = {
  captureDeadlineSeconds: AUTH_CAPTURE_LIMITS.captureDeadlineSeconds.max,
  refundDeadlineSeconds: AUTH_CAPTURE_LIMITS.refundDeadlineSeconds.max,
} as const

// The hold's types live in ./quote.ts (which this file imports); re-exported for the holds.
export type { HoldOutcome, HoldTerms } from './quote.js'

const RECEIVE_WITH_AUTHORIZATION = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

const refuse = (why: string): never => {
  throw new BaseError(
    'AUTH_CAPTURE_TERMS_REFUSED',
    `the seller's auth-capture offer ${why}; nothing was signed or paid`,
  )
}
const nonZero = (v: unknown): v is string =>
  typeof v === 'string' && isAddress(v, { strict: false }) && !isAddressEqual(v, zeroAddress)
const bps = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 10_000

/**
 * Whether `r` is an auth-capture offer this agent can hold: on its chain, in an ERC-3009 token of
 * it, collected by ERC-3009 (the platform signs no Permit2), at a known escrow deployment. Offers
 * that fit but ask deadlines beyond AGENT_HOLD_LIMITS, out of order, or fee bounds that are not
 * basis points are refused, not skipped: the seller wants a hold the platform does not sign.
 */
export function holdable(c: QuoteContext, r: PaymentRequirements): boolean {
  const token = c.tokens.find((t) => t.address.toLowerCase() === r.asset.toLowerCase())
  const e = r.extra ?? {}
  return (
    r.scheme === AUTH_CAPTURE &&
    r.network === c.chain.spec.caip2 &&
    token?.eip3009 === true &&
    (e.assetTransferMethod === undefined || e.assetTransferMethod === 'eip3009') &&
    authCaptureDeployment(typeof e.authCaptureEscrow === 'string' ? e.authCaptureEscrow : undefined) !== undefined
  )
}

/**
 * The hold an agent signs for `r` at `now` (unix seconds): PaymentInfo as the official client
 * (`@x402/evm/auth-capture/client` 2.27.0) builds it, except that the token authorization's
 * validity (`preApprovalExpiry`) is the seller's `maxTimeoutSeconds` clamped to the platform's cap
 * (`pay.validitySeconds`), and that the deadlines are checked against AGENT_HOLD_LIMITS first.
 */
export function holdTerms(
  c: QuoteContext,
  r: PaymentRequirements,
  now: number,
  saltNonce: Hex,
): { terms: HoldTerms; bound: boolean } {
  const e = r.extra ?? {}
  const deployment = authCaptureDeployment(typeof e.authCaptureEscrow === 'string' ? e.authCaptureEscrow : undefined)!
  const capture = e.captureDeadline,
    refund = e.refundDeadline
  if (!nonZero(e.captureAuthorizer)) refuse('names no captureAuthorizer')
  if (typeof e.feeRecipient !== 'string' || !isAddress(e.feeRecipient, { strict: false }))
    refuse('names no feeRecipient')
  if (!bps(e.minFeeBps) || !bps(e.maxFeeBps) || (e.minFeeBps as number) > (e.maxFeeBps as number))
    refuse('has fee bounds that are not basis points (0..10000, min <= max)')
  if (
    typeof capture !== 'number' ||
    typeof refund !== 'number' ||
    !Number.isSafeInteger(capture) ||
    !Number.isSafeInteger(refund)
  )
    refuse('names no whole-second captureDeadline and refundDeadline')
  const preApprovalExpiry = now + validitySeconds(r.maxTimeoutSeconds ?? 60, c.maxValiditySeconds)
  const L = AGENT_HOLD_LIMITS
  if ((capture as number) > now + L.captureDeadlineSeconds)
    refuse(
      `asks a capture deadline ${(capture as number) - now} s away, above the platform's ` +
        `${L.captureDeadlineSeconds} s: the agent's money would be held longer than it signs for`,
    )
  if ((refund as number) > now + L.refundDeadlineSeconds)
    refuse(
      `asks a refund deadline ${(refund as number) - now} s away, above the platform's ${L.refundDeadlineSeconds} s`,
    )
  if ((capture as number) <= preApprovalExpiry || (refund as number) < (capture as number))
    refuse(
      'has deadlines out of order (the authorization must expire before the ' +
        'capture deadline, the capture deadline not after the refund deadline)',
    )
  const bound = nonZero(e.receiverAuthorizer) || nonZero(e.policy)
  const addr = (v: unknown) => (nonZero(v) ? getAddress(v) : zeroAddress)
  const salt = bound ? boundSalt(addr(e.receiverAuthorizer), addr(e.policy), BigInt(saltNonce)) : BigInt(saltNonce)
  const info: PaymentInfo = {
    operator: getAddress(e.captureAuthorizer as string),
    payer: c.signer.address,
    receiver: getAddress(r.payTo),
    token: getAddress(r.asset),
    maxAmount: BigInt(r.amount),
    preApprovalExpiry,
    authorizationExpiry: capture as number,
    refundExpiry: refund as number,
    minFeeBps: e.minFeeBps as number,
    maxFeeBps: e.maxFeeBps as number,
    feeReceiver: getAddress(e.feeRecipient as string),
    salt,
  }
  return {
    terms: {
      id: paymentInfoHash(info, c.chain.chainId, deployment.escrow),
      escrow: deployment.escrow,
      version: deployment.version,
      info,
    },
    bound,
  }
}

/**
 * Signs the collect payload of a hold: an ERC-3009 `receiveWithAuthorization` of the maximum to
 * the deployment's collector, its nonce the payer-agnostic hash of PaymentInfo (so it can only
 * ever fund this one payment), exactly the official client's payload.
 */
export async function signHold(
  c: QuoteContext,
  r: PaymentRequirements,
  t: HoldTerms,
  bound: boolean,
  saltNonce: Hex,
): Promise<{ payload: Record<string, unknown>; nonce: Hex }> {
  const deployment = authCaptureDeployment(t.escrow)!
  const token = c.tokens.find((x) => x.address.toLowerCase() === r.asset.toLowerCase())!
  const nonce = signatureNonce(t.info, c.chain.chainId, t.escrow)
  const authorization = {
    from: c.signer.address,
    to: deployment.eip3009Collector,
    value: t.info.maxAmount.toString(),
    validAfter: '0',
    validBefore: String(t.info.preApprovalExpiry),
    nonce,
  }
  const signature = await c.signer.signTypedData({
    domain: {
      name: String(r.extra.name ?? token.permitDomain?.name ?? ''),
      version: String(r.extra.version ?? token.permitDomain?.version ?? ''),
      chainId: c.chain.chainId,
      verifyingContract: getAddress(r.asset),
    },
    types: RECEIVE_WITH_AUTHORIZATION,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      ...authorization,
      value: t.info.maxAmount,
      validAfter: 0n,
      validBefore: BigInt(t.info.preApprovalExpiry),
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
    },
  })
  const salt = toHex(t.info.salt, { size: 32 })
  return { payload: bound ? { authorization, signature, salt, saltNonce } : { authorization, signature, salt }, nonce }
}

/**
 * The seller's PAYMENT-RESPONSE for a hold: the transaction (the capture's, the void's or the authorize's) and what it
 * says became of the maximum.
 */
export function holdSettlement(
  res: Response,
  max: bigint,
): { transaction: Hex | null; reason?: string; outcome?: HoldOutcome } {
  const s = decodeHeader<SettleResponse & { amount?: string }>(res.headers.get(x402Headers.response))
  if (!s?.success || !isTxHash(s.transaction))
    return {
      transaction: null,
      reason: s?.errorReason ?? decodeHeader<{ error?: string }>(res.headers.get(x402Headers.required))?.error,
    }
  const x = isRecord(s.extra) ? s.extra : {}
  const n = (v: unknown) => (typeof v === 'string' && /^\d{1,78}$/.test(v) ? BigInt(v) : undefined)
  if (x.operation === 'capture') {
    const captured = n(s.amount) ?? max
    const voided = n(x.voided) ?? 0n
    return {
      transaction: s.transaction,
      outcome: { operation: 'capture', captured, voided: captured + voided <= max ? voided : 0n },
    }
  }
  if (x.operation === 'void')
    return { transaction: s.transaction, outcome: { operation: 'void', captured: 0n, voided: max } }
  // The authorize only (captureMode deferred, or a seller that says nothing more): held until the chain says otherwise.
  return { transaction: s.transaction, outcome: { operation: 'authorize', captured: 0n, voided: 0n } }
}
