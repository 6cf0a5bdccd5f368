import { createHash } from 'node:crypto'
import { canonical } from '../../src/sdk/x402/canonical-json.js'
import { PAYMENT_IDENTIFIER, paymentIdOf } from '../../src/sdk/x402/payment-identifier.js'
import { reasons } from '../../src/sdk/x402/reasons.js'
import { UPTO } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { Failure, Resolved } from './method.js'

/** A payment's client-chosen id, the seller it is scoped to, and what makes two payloads the same payment. */
export type PaymentIdentity = { paymentId: string; scope: string; fingerprint: string }

/**
 * The seller an id belongs to: the `payTo` of the terms, which is all a facilitator knows of the
 * seller (EVM addresses lowercased, so spellings of one address are one seller). Two sellers can
 * use the same id without meeting; one seller's id is one purchase on every network.
 */
export const scopeOf = (payTo: string): string => (/^0x[0-9a-fA-F]{40}$/.test(payTo) ? payTo.toLowerCase() : payTo)

/**
 * The payment-identifier of a payment, if it carries one. The fingerprint covers the signed
 * payload, the other extensions (an EIP-2612 sponsoring permit is part of what is paid) and the
 * terms it pays (network, asset, amount, payTo): the same payment retried matches it, anything
 * re-signed or re-priced does not. An `upto` payment's amount is left out: verify states the signed
 * maximum and settle the amount used, one payment either way (the maximum is in the signed payload).
 */
export function identify(p: Payment, r: Resolved): PaymentIdentity | undefined | Failure {
  const id = paymentIdOf(p.extensions)
  if (id === undefined) return undefined
  if (typeof id !== 'string') return { reason: reasons.invalidPaymentIdentifier, message: id.invalid }
  const { [PAYMENT_IDENTIFIER]: _ignored, ...otherExtensions } = p.extensions ?? {}
  const scope = scopeOf(r.requirements.payTo)
  const amount = r.requirements.scheme === UPTO ? null : r.requirements.amount
  const terms = {
    scheme: r.requirements.scheme,
    network: r.spec.caip2,
    asset: r.requirements.asset.toLowerCase(),
    amount,
    payTo: scope,
  }
  const fingerprint = createHash('sha256')
    .update(canonical({ terms, payload: p.payload, extensions: otherExtensions }))
    .digest('hex')
  return { paymentId: id, scope, fingerprint }
}
