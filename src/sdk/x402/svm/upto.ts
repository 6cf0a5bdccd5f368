import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import {
  checkSplWindow,
  createSplPayload,
  type MessageSigner,
  parseSplPayload,
  type SplAuthorization,
  type SplFailure,
  verifySplSignature,
} from './delegated-spl.js'

/**
 * `upto` (metered) on Solana over delegated-spl: the payer, who approved the facilitator's signer
 * as SPL delegate once, signs an ed25519 message for a MAXIMUM; the seller settles what was used,
 * never more, and the facilitator moves exactly that with transferChecked as delegate. The message
 * opens with `upto|` and names `max:` where delegated-spl's names `amount:`, so neither signature
 * verifies as the other: an exact authorization can never be settled as a metered one or back.
 * The payload has delegated-spl's shape (`{signature, authorization:{from,to,value,validAfter,validBefore,nonce}}`,
 * `value` being the maximum); nothing on chain records the nonce, so the settlement ledger does.
 */
export type SplUptoAuthorization = SplAuthorization

/** The exact bytes an upto payer signs. */
export function splUptoMessage(a: {
  from: string
  to: string
  amount: bigint | string
  nonce: string
  deadline: bigint | string
}): Uint8Array {
  return new TextEncoder().encode(
    `upto|from:${a.from}|to:${a.to}|max:${a.amount}|nonce:${a.nonce}|deadline:${a.deadline}`,
  )
}

/** Reads the payload as delegated-spl does (same shape); `amount` is the signed maximum. */
export const parseSplUptoPayload = (payload: Record<string, unknown>): SplUptoAuthorization | SplFailure =>
  parseSplPayload(payload)

/**
 * Signature over the upto message, recipient, the maximum (exactly the requirements' `amount`, as
 * the EVM upto requires at verify; the facilitator passes the maximum here at settle) and the
 * validity window: everything that needs no chain.
 */
export function checkSplUpto(a: SplUptoAuthorization, r: PaymentRequirements, now: bigint): SplFailure | undefined {
  if (!verifySplSignature(splUptoMessage(a), a.signature, a.from)) {
    return {
      reason: reasons.svmSplSignature,
      message:
        `the signature does not verify against ${a.from} over the upto ` +
        `message (a delegated-spl exact signature is not an upto one)`,
    }
  }
  if (a.to !== r.payTo)
    return {
      reason: reasons.svmSplRecipientMismatch,
      message: `authorization.to ${a.to} is not the seller's payTo ${r.payTo}`,
    }
  if (a.amount !== BigInt(r.amount)) {
    return {
      reason: reasons.svmSplAmountMismatch,
      message: `the signed maximum ${a.amount} must be exactly the requirements' amount ${r.amount}`,
    }
  }
  return checkSplWindow(a, r, now)
}

/** Distinct from delegated-spl's key: the two forms' nonces are signed over different messages. */
export const splUptoReplayKey = (network: string, a: Pick<SplUptoAuthorization, 'from' | 'nonce'>) =>
  `${network}:spl-upto:${a.from}:${a.nonce}`

/**
 * Builds and signs an upto payload for the seller's requirements: `r.amount` is the maximum.
 *
 * @example
 * const payload = await createSplUptoPayload(keypairSigner(payer), requirements)
 */
export function createSplUptoPayload(
  signer: MessageSigner,
  r: PaymentRequirements,
  now = BigInt(Math.floor(Date.now() / 1000)),
) {
  return createSplPayload(signer, r, now, splUptoMessage)
}
