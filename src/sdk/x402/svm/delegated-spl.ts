import { sign as edSign } from 'node:crypto'
import type { Keypair, PublicKey } from '@solana/web3.js'
import bs58 from 'bs58'
import { ed25519PrivateKey, ed25519Verifies } from '../../solana/ed25519-keys.js'
import { decodeBase58Of, isBase58Of } from '../../solana/encoded-size.js'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import { isRecord } from '../wire.js'

/**
 * delegated-spl (docs/facilitator.md "x402 facilitator"): the payer signs an ed25519 message naming recipient, amount,
 * nonce
 * and deadline; the facilitator, which the payer once approved as SPL delegate of their token
 * account, moves the amount with transferChecked. The message binds neither mint nor network, so
 * the facilitator records every nonce per payer and the delegated amount caps what it can move.
 */
export type SplAuthorization = {
  from: string
  to: string
  amount: bigint
  nonce: string
  deadline: bigint
  validAfter: bigint
  signature: Uint8Array
}

export type SplFailure = { reason: string; message: string }

export const DEADLINE_SKEW_SECONDS = 60n
const MIN_VALIDITY_SECONDS = 6n

/** The exact bytes the payer signs. */
export function splMessage(a: {
  from: string
  to: string
  amount: bigint | string
  nonce: string
  deadline: bigint | string
}): Uint8Array {
  return new TextEncoder().encode(
    `from:${a.from}|to:${a.to}|amount:${a.amount}|nonce:${a.nonce}|deadline:${a.deadline}`,
  )
}

/** Something that signs raw bytes with an ed25519 key: a Keypair, or a wallet adapter. */
export type MessageSigner = { publicKey: PublicKey; signMessage(message: Uint8Array): Promise<Uint8Array> }

export function keypairSigner(kp: Keypair): MessageSigner {
  const key = ed25519PrivateKey(kp.secretKey.subarray(0, 32))
  return { publicKey: kp.publicKey, signMessage: async (m) => new Uint8Array(edSign(null, m, key)) }
}

/** An authorization's (or a transaction's) Ed25519 signature by `signer`, a base58 address. */
export const verifySplSignature = ed25519Verifies

// Length-bounded before decoding (bs58 is quadratic): a payload field costs microseconds at most.
const isPubkey = (v: unknown): v is string => isBase58Of(v, 32)
const uint = (v: unknown) =>
  typeof v === 'string' && /^\d{1,20}$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : undefined

/**
 * Reads `{signature, authorization}`. The authorization takes the x402 field names (value,
 * validBefore) or the message's own (amount, deadline); the signature is base58.
 */
export function parseSplPayload(payload: Record<string, unknown>): SplAuthorization | SplFailure {
  const bad = (field: string): SplFailure => ({
    reason: reasons.invalidPayload,
    message: `payload.${field} is missing or malformed`,
  })
  const a = payload.authorization
  if (!isRecord(a)) return bad('authorization')
  const signature = decodeBase58Of(payload.signature, 64)
  if (!signature) return bad('signature')
  const amount = uint(a.value ?? a.amount)
  const deadline = uint(a.validBefore ?? a.deadline)
  const validAfter = uint(a.validAfter ?? '0')
  if (!isPubkey(a.from)) return bad('authorization.from')
  if (!isPubkey(a.to)) return bad('authorization.to')
  if (amount === undefined) return bad('authorization.value')
  if (deadline === undefined) return bad('authorization.validBefore')
  if (validAfter === undefined) return bad('authorization.validAfter')
  if (typeof a.nonce !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(a.nonce)) return bad('authorization.nonce')
  return { from: a.from, to: a.to, amount, nonce: a.nonce, deadline, validAfter, signature }
}

/** Signature, recipient, amount and the validity window: everything that needs no chain. */
export function checkSplAuthorization(
  a: SplAuthorization,
  r: PaymentRequirements,
  now: bigint,
): SplFailure | undefined {
  if (!verifySplSignature(splMessage(a), a.signature, a.from)) {
    return {
      reason: reasons.svmSplSignature,
      message: `the signature does not verify against ${a.from} over the delegated-spl message`,
    }
  }
  if (a.to !== r.payTo)
    return {
      reason: reasons.svmSplRecipientMismatch,
      message: `authorization.to ${a.to} is not the seller's payTo ${r.payTo}`,
    }
  if (a.amount < BigInt(r.amount))
    return {
      reason: reasons.svmSplAmountMismatch,
      message: `authorization amount ${a.amount} is less than the price ${r.amount}`,
    }
  return checkSplWindow(a, r, now)
}

/** The validity window both signed forms (delegated-spl and its upto) share: deadline and validAfter. */
export function checkSplWindow(
  a: Pick<SplAuthorization, 'deadline' | 'validAfter'>,
  r: PaymentRequirements,
  now: bigint,
): SplFailure | undefined {
  if (a.deadline < now + MIN_VALIDITY_SECONDS)
    return { reason: reasons.svmSplDeadline, message: `deadline ${a.deadline} has passed (now ${now})` }
  if (a.deadline > now + BigInt(r.maxTimeoutSeconds) + DEADLINE_SKEW_SECONDS) {
    return {
      reason: reasons.svmSplDeadline,
      message: `deadline ${a.deadline} is further out than maxTimeoutSeconds (${r.maxTimeoutSeconds} s) allows`,
    }
  }
  if (a.validAfter > now)
    return { reason: reasons.svmSplNotYetValid, message: `validAfter ${a.validAfter} is in the future (now ${now})` }
  return undefined
}

/** Nonces are per payer across mints, since the signed message names no mint. */
export const splReplayKey = (network: string, a: Pick<SplAuthorization, 'from' | 'nonce'>) =>
  `${network}:spl:${a.from}:${a.nonce}`

/** A fresh nonce for a payer's next authorization. */
export function newSplNonce(): string {
  return bs58.encode(crypto.getRandomValues(new Uint8Array(16)))
}

/**
 * Builds and signs a delegated-spl payload for the seller's requirements. `message` is the form
 * signed: delegated-spl's own, or upto's (./upto.ts), whose `amount` is the maximum.
 */
export async function createSplPayload(
  signer: MessageSigner,
  r: PaymentRequirements,
  now = BigInt(Math.floor(Date.now() / 1000)),
  message = splMessage,
) {
  const authorization = {
    from: signer.publicKey.toBase58(),
    to: r.payTo,
    value: r.amount,
    validAfter: '0',
    validBefore: String(now + BigInt(r.maxTimeoutSeconds)),
    nonce: newSplNonce(),
  }
  const signature = await signer.signMessage(
    message({ ...authorization, amount: authorization.value, deadline: authorization.validBefore }),
  )
  return { signature: bs58.encode(signature), authorization }
}
