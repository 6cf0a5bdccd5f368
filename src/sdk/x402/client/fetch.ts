import type { PaymentPayload, PaymentPayloadV1, PaymentRequired, PaymentRequiredV1, PaymentRequirements, SettleResponse } from '../types.js'
import { decodeHeader, encodeHeader, headers, isRecord } from '../wire.js'
import { newPaymentId, PAYMENT_IDENTIFIER, withPaymentId } from '../payment-identifier.js'
import { reasons } from '../reasons.js'
import { canPay, signPayment, type PayerKeys } from './payer.js'

export type PayingFetchOptions = PayerKeys & {
  /** Picks among the requirements these keys can pay; default: the first. */
  select?: (payable: PaymentRequirements[]) => PaymentRequirements
  /** Speak x402 v1 (the JSON body and X-PAYMENT) even when the seller also offers v2. */
  version?: 1 | 2
  /**
   * The payment-identifier of each purchase (v2): default a new id per call. `false` sends none.
   * The id makes the purchase idempotent at a facilitator that supports the extension: the paid
   * request sent again is answered, never charged twice.
   */
  paymentId?: (() => string) | false
}

/**
 * Wraps fetch so a 402 is paid and the request repeated once: v2 from the PAYMENT-REQUIRED header
 * (answered with PAYMENT-SIGNATURE), v1 from the JSON body (answered with X-PAYMENT). Methods:
 * erc2612 and eip3009 on EVM, delegated-spl on Solana (`exact`, and `upto` with its own signed
 * message for the offer's maximum). A v2 payment carries a payment-identifier,
 * one per purchase; when the paid request gets no answer, or its settlement is still pending, the
 * very same payment (same id, same signature) is sent once more: never a second one.
 *
 * @example
 * const pay = wrapFetchWithPayment(fetch, { evm: { signer: account, clients: [publicClient] } })
 * const res = await pay('http://127.0.0.1:3000/weather')
 * settlementOf(res) // { success: true, transaction: '0x…', … }
 */
export function wrapFetchWithPayment(fetchFn: typeof fetch, opts: PayingFetchOptions): typeof fetch {
  return async (input, init) => {
    const first = await fetchFn(input, init)
    if (first.status !== 402) return first
    const required = await paymentRequired(first, opts.version)
    if (!required) return first
    const v1 = required.x402Version === 1
    const all: PaymentRequirements[] = v1
      ? (required as PaymentRequiredV1).accepts.map((r) => ({ ...r, amount: r.maxAmountRequired }))
      : (required as PaymentRequired).accepts
    const payable = all.filter((r) => canPay(opts, r))
    if (payable.length === 0) throw new Error(`none of the ${all.length} payment options can be paid with the configured keys`)
    const chosen = (opts.select ?? ((p) => p[0]!))(payable)
    const payload = await signPayment(opts, chosen)
    const index = all.indexOf(chosen)
    // Only the payment-identifier is echoed: other declarations (gas sponsoring) carry what this client does not sign.
    const declared = v1 ? undefined : (required as PaymentRequired).extensions?.[PAYMENT_IDENTIFIER]
    // Sent only where the seller declares the extension, as the reference client does: a stock
    // seller that does not know it may refuse a payload carrying it (mppx's does).
    const id = v1 || !declared || opts.paymentId === false ? undefined : (opts.paymentId ?? newPaymentId)()
    const extensions = id ? withPaymentId({ [PAYMENT_IDENTIFIER]: declared }, id) : undefined
    const message: PaymentPayload | PaymentPayloadV1 = v1
      ? { x402Version: 1, scheme: chosen.scheme, network: chosen.network, payload }
      // `accepted` must be the server's requirement exactly as sent: sellers compare it field by field.
      : { x402Version: 2, accepted: (required as PaymentRequired).accepts[index]!, payload, resource: (required as PaymentRequired).resource, ...(extensions ? { extensions } : {}) }
    const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    h.set(v1 ? headers.v1Payment : headers.signature, encodeHeader(message))
    const paid = () => fetchFn(input instanceof Request ? input.clone() : input, { ...init, headers: h })
    // Without an id a repeat would only meet duplicate_settlement: retry only what is idempotent.
    if (!id) return paid()
    let res: Response
    try {
      res = await paid()
    } catch {
      return paid()
    }
    if (res.status === 402 && settlementOf(res)?.errorReason === reasons.settlementPending) {
      await res.body?.cancel().catch(() => {})
      return paid()
    }
    return res
  }
}

async function paymentRequired(res: Response, version?: 1 | 2): Promise<PaymentRequired | PaymentRequiredV1 | undefined> {
  const v2 = decodeHeader<PaymentRequired>(res.headers.get(headers.required))
  if (version !== 1 && v2 && Array.isArray(v2.accepts)) return v2
  if (version === 2) return undefined
  const body = (await res.json().catch(() => undefined)) as unknown
  return isRecord(body) && body.x402Version === 1 && Array.isArray(body.accepts) ? (body as PaymentRequiredV1) : undefined
}

/** The settlement a paid response reports (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE for v1). */
export function settlementOf(res: Response): SettleResponse | undefined {
  return decodeHeader<SettleResponse>(res.headers.get(headers.response) ?? res.headers.get(headers.v1Response))
}
