import { randomBytes } from 'node:crypto'
import { getAddress, type Hex, toHex } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { networks } from '../../../src/networks/registry.js'
import { canPay, methodOf, signPayment } from '../../../src/sdk/x402/client/payer.js'
import { newPaymentId, PAYMENT_IDENTIFIER, withPaymentId } from '../../../src/sdk/x402/payment-identifier.js'
import {
  methods,
  type PaymentRequired,
  type PaymentRequiredV1,
  type PaymentRequirements,
  type SettleResponse,
} from '../../../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader, isRecord, headers as x402Headers } from '../../../src/sdk/x402/wire.js'
import { holdable, holdSettlement, holdTerms, signHold } from './auth-capture.js'
import type { PaymentProof } from './proof.js'
import { isTxHash, type Offered, type Quote, type QuoteContext, sameAddress, validitySeconds } from './quote.js'

/**
 * x402 terms of a 402: the v2 `PAYMENT-REQUIRED` header, else the v1 JSON body. Returns the offers
 * payable on the agent's network in its tokens (erc2612 and eip3009, signed by our client) and a
 * description of all offers; throws SELLER_TERMS_MALFORMED for terms that are present but unreadable.
 *
 * An erc2612 permit names the spender the offer gives (`extra.spender`). It is not checked against
 * a facilitator's `/supported` signers: x402 terms do not say which facilitator the seller uses, so
 * a seller would name its own, and the spender is the seller's word either way. What bounds a
 * permit is its own content: `value` is the price reserved against the limits, the deadline is
 * capped like every signature, and its nonce tells afterwards whether it was used.
 */
export function x402Quotes(c: QuoteContext, header: string | null, body: unknown): Offered | undefined {
  let protocol: 'x402-v2' | 'x402-v1'
  let accepts: PaymentRequirements[]
  let resource: unknown
  let extensions: unknown
  const v1Network = new Map<PaymentRequirements, string>()
  if (header) {
    const v2 = decodeHeader<PaymentRequired>(header)
    if (v2?.x402Version !== 2 || !Array.isArray(v2.accepts) || !v2.accepts.every(validRequirement)) {
      throw new BaseError(
        'SELLER_TERMS_MALFORMED',
        `the seller's ${x402Headers.required} header cannot be read as x402 v2 terms; nothing was paid`,
      )
    }
    protocol = 'x402-v2'
    accepts = v2.accepts
    resource = v2.resource
    extensions = v2.extensions
  } else if (isRecord(body) && body.x402Version === 1 && Array.isArray(body.accepts)) {
    const v1 = body as PaymentRequiredV1
    if (
      !v1.accepts.every((r) => isRecord(r) && typeof r.maxAmountRequired === 'string' && typeof r.network === 'string')
    ) {
      throw new BaseError('SELLER_TERMS_MALFORMED', "the seller's x402 v1 terms cannot be read; nothing was paid")
    }
    protocol = 'x402-v1'
    accepts = v1.accepts.map((r) => {
      const caip2 = Object.values(networks).find((n) => n.legacyName === r.network)?.caip2 ?? r.network
      const req = { ...r, network: caip2, amount: r.maxAmountRequired } as unknown as PaymentRequirements
      v1Network.set(req, r.network)
      return req
    })
    if (!accepts.every(validRequirement))
      throw new BaseError('SELLER_TERMS_MALFORMED', "the seller's x402 v1 terms cannot be read; nothing was paid")
  } else {
    return undefined
  }
  const keys = { evm: { signer: c.signer, clients: [c.chain.client] } }
  const declared = isRecord(extensions) ? extensions[PAYMENT_IDENTIFIER] : undefined
  const quotes: Quote[] = []
  const holds: Quote[] = []
  let refused: unknown
  for (const r of accepts) {
    const token = c.tokens.find((t) => sameAddress(t.address, r.asset))
    if (protocol === 'x402-v2' && token && holdable(c, r)) {
      try {
        holds.push(holdQuote(c, r, token, resource, declared))
      } catch (e) {
        refused ??= e
      }
      continue
    }
    if (r.network !== c.chain.spec.caip2 || !token || !canPay(keys, r)) continue
    quotes.push({
      protocol,
      scheme: r.scheme,
      token,
      raw: amountOf(r.amount),
      payTo: r.payTo,
      async sign() {
        // Signed for at most the cap (x402's default of 60 s when the seller names none); the
        // message still carries the seller's own terms as `accepted`, which sellers compare as is.
        const payload = await signPayment(keys, {
          ...r,
          maxTimeoutSeconds: validitySeconds(r.maxTimeoutSeconds ?? 60, c.maxValiditySeconds),
        })
        // One payment-identifier per purchase where the seller declares the extension (as the reference
        // client does; a stock seller that does not know it may refuse it): the same paid request sent
        // again is then answered by the facilitator, never charged twice.
        const message =
          protocol === 'x402-v1'
            ? { x402Version: 1, scheme: r.scheme, network: v1Network.get(r)!, payload }
            : {
                x402Version: 2,
                accepted: r,
                payload,
                resource,
                ...(declared ? { extensions: withPaymentId({ [PAYMENT_IDENTIFIER]: declared }, newPaymentId()) } : {}),
              }
        const a = (payload as { authorization: { from: string; nonce: string; validBefore: string } }).authorization
        const validBefore = BigInt(a.validBefore)
        const proof: PaymentProof =
          methodOf(r) === methods.erc2612
            ? {
                kind: 'erc2612',
                token: token.address,
                owner: getAddress(a.from),
                nonce: BigInt(a.nonce),
                to: getAddress(r.payTo),
                value: BigInt(r.amount),
                validBefore,
              }
            : { kind: 'eip3009', token: token.address, from: getAddress(a.from), nonce: a.nonce as Hex, validBefore }
        return {
          headers: { [protocol === 'x402-v1' ? x402Headers.v1Payment : x402Headers.signature]: encodeHeader(message) },
          proof,
          idempotent: protocol === 'x402-v2' && declared !== undefined,
        }
      },
      settlement(res) {
        const s = decodeHeader<SettleResponse>(
          res.headers.get(x402Headers.response) ?? res.headers.get(x402Headers.v1Response),
        )
        if (s?.success && isTxHash(s.transaction)) return { transaction: s.transaction }
        const refused = decodeHeader<PaymentRequired>(res.headers.get(x402Headers.required))
        return { transaction: null, reason: s?.errorReason ?? refused?.error }
      },
    })
  }
  const offered = accepts.map((r) =>
    `x402 ${r.scheme} ${String(r.extra?.assetTransferMethod ?? '')} on ${r.network} in ${r.asset}`.replace('  ', ' '),
  )
  const pref = c.scheme ?? { preferAuthCapture: true }
  const ordered =
    pref.only === 'exact'
      ? quotes
      : pref.only === 'auth-capture'
        ? holds
        : pref.preferAuthCapture
          ? [...holds, ...quotes]
          : [...quotes, ...holds]
  // A hold the platform does not sign (deadlines beyond its maxima...) is refused when nothing else asked for is
  // payable.
  if (ordered.length === 0 && refused && pref.only !== 'exact') throw refused
  return { quotes: ordered, offered }
}

/**
 * An x402 `auth-capture` offer as a quote: the maximum is what is reserved against the limits
 * (held until the seller captures, voids or the agent reclaims), the terms are fixed and checked
 * now (./auth-capture.ts, refusing deadlines beyond the platform's maxima), the signature is the
 * official client's collect payload.
 */
function holdQuote(
  c: QuoteContext,
  r: PaymentRequirements,
  token: QuoteContext['tokens'][number],
  resource: unknown,
  declared: unknown,
): Quote {
  const raw = amountOf(r.amount)
  const saltNonce = toHex(randomBytes(32))
  const { terms, bound } = holdTerms(c, r, Math.floor(Date.now() / 1000), saltNonce)
  return {
    protocol: 'x402-v2',
    scheme: r.scheme,
    token,
    raw,
    payTo: r.payTo,
    hold: terms,
    async sign() {
      const { payload, nonce } = await signHold(c, r, terms, bound, saltNonce)
      const message = {
        x402Version: 2,
        accepted: r,
        payload,
        resource,
        ...(declared ? { extensions: withPaymentId({ [PAYMENT_IDENTIFIER]: declared }, newPaymentId()) } : {}),
      }
      // The collector's receiveWithAuthorization uses the nonce: used on chain means the hold was placed.
      const proof: PaymentProof = {
        kind: 'eip3009',
        token: token.address,
        from: c.signer.address,
        nonce,
        validBefore: BigInt(terms.info.preApprovalExpiry),
      }
      return { headers: { [x402Headers.signature]: encodeHeader(message) }, proof, idempotent: declared !== undefined }
    },
    settlement: (res) => holdSettlement(res, raw),
  }
}

/** A seller's amount as base units; SELLER_TERMS_MALFORMED unless a positive integer. */
export function amountOf(amount: string): bigint {
  try {
    const raw = BigInt(amount)
    if (raw > 0n && /^\d+$/.test(amount)) return raw
  } catch {}
  throw new BaseError(
    'SELLER_TERMS_MALFORMED',
    `the seller's amount '${amount}' is not a positive integer of base units; nothing was paid`,
  )
}

const validRequirement = (r: unknown): r is PaymentRequirements =>
  isRecord(r) &&
  typeof r.scheme === 'string' &&
  typeof r.network === 'string' &&
  typeof r.asset === 'string' &&
  typeof r.amount === 'string' &&
  typeof r.payTo === 'string' &&
  isRecord(r.extra ?? {})
