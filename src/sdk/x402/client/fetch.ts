import { BaseError } from '../../../errors/base.js'
import { BATCH_SETTLEMENT } from '../evm/batch-settlement/contracts.js'
import { newPaymentId, PAYMENT_IDENTIFIER, withPaymentId } from '../payment-identifier.js'
import { reasons } from '../reasons.js'
import type {
  PaymentPayload,
  PaymentPayloadV1,
  PaymentRequired,
  PaymentRequiredV1,
  PaymentRequirements,
  SettleResponse,
} from '../types.js'
import { decodeHeader, encodeHeader, headers, isRecord } from '../wire.js'
import { type Channel, type ChannelOptions, ChannelWallet } from './batch-settlement.js'
import { canPay, type PayerKeys, signPayment } from './payer.js'

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
  /**
   * Pay `batch-settlement` offers (v2, EVM, eip3009 deposits) through channels, preferred where a
   * seller offers one: a deposit once, then a voucher per request and no transaction. `true` takes
   * the defaults (CHANNEL_DEFAULTS: a deposit of 10x the price and at most 5 USDC, its authorization
   * valid 300 s at most, a withdraw delay of a day at most). Needs `evm`, with a public client for
   * each chain paid on: a channel's balance is read there before any deposit.
   */
  channels?: ChannelOptions | true
}

const MAX_REMEMBERED_OFFERS = 1000

/**
 * A seller's channel offer as it sent it (sent back as `accepted`, and paid again without asking), and our channel for
 * it.
 */
type ChannelOffer = { requirement: PaymentRequirements; resource: PaymentRequired['resource']; channel: Channel }

/**
 * Wraps fetch so a 402 is paid and the request repeated once: v2 from the PAYMENT-REQUIRED header
 * (answered with PAYMENT-SIGNATURE), v1 from the JSON body (answered with X-PAYMENT). Methods:
 * erc2612 and eip3009 on EVM, delegated-spl on Solana (`exact`, and `upto` with its own signed
 * message for the offer's maximum), and with `channels` `batch-settlement` (ChannelWallet): once
 * a path was paid by channel, its voucher goes with the first request. A v2 payment carries a
 * payment-identifier, one per purchase; when the paid request gets no answer, or its settlement is
 * still pending, the very same payment (same id, same signature) is sent once more: never a second one.
 *
 * @example
 * const pay = wrapFetchWithPayment(fetch, { evm: { signer: account, clients: [publicClient] } })
 * const res = await pay('http://127.0.0.1:3000/weather')
 * settlementOf(res) // { success: true, transaction: '0x…', … }
 */
export function wrapFetchWithPayment(fetchFn: typeof fetch, opts: PayingFetchOptions): typeof fetch {
  const wallet =
    opts.evm && opts.channels
      ? new ChannelWallet(opts.evm.signer, opts.channels === true ? {} : opts.channels, opts.evm.clients)
      : undefined
  // The channel offer last paid at a method and path: the next request there carries its voucher at
  // once, one round trip instead of two. A seller whose terms changed answers 402, paid afresh below.
  const offers = new Map<string, ChannelOffer>()
  return async (input, init) => {
    const key = wallet ? offerKey(input, init) : ''
    const known = wallet && offers.get(key)
    const send = (h: Headers) => fetchFn(input instanceof Request ? input.clone() : input, { ...init, headers: h })
    const base = init?.headers ?? (input instanceof Request ? input.headers : undefined)
    let first: Response
    if (wallet && known) {
      first = await payByChannel(wallet, known, send, base)
      if (first.status !== 402) return first
      offers.delete(key)
    } else {
      first = await fetchFn(input, init)
    }
    if (first.status !== 402) return first
    const required = await paymentRequired(first, opts.version)
    if (!required) return first
    const v1 = required.x402Version === 1
    const all: PaymentRequirements[] = v1
      ? (required as PaymentRequiredV1).accepts.map((r) => ({ ...r, amount: r.maxAmountRequired }))
      : (required as PaymentRequired).accepts
    const byChannel = new Set(wallet && !v1 ? all.filter((r) => wallet.pays(r)) : [])
    const payable = all.filter((r) => canPay(opts, r) || byChannel.has(r))
    // A channel offer alone, refused by this buyer's bounds: the refusal says which (CHANNEL_TERMS_REFUSED).
    const offeredChannel =
      wallet && !v1 && payable.length === 0 ? all.find((r) => r.scheme === BATCH_SETTLEMENT) : undefined
    if (offeredChannel) wallet!.channelFor(offeredChannel)
    if (payable.length === 0)
      throw new BaseError(
        'SELLER_METHOD_UNSUPPORTED',
        `none of the ${all.length} payment options can be paid with the configured keys`,
      )
    const chosen = (opts.select ?? ((p) => p.find((r) => byChannel.has(r)) ?? p[0]!))(payable)
    const index = all.indexOf(chosen)
    if (wallet && byChannel.has(chosen)) {
      const offer = {
        requirement: chosen,
        resource: (required as PaymentRequired).resource,
        channel: wallet.channelFor(chosen),
      }
      const res = await payByChannel(wallet, offer, send, base)
      if (res.status < 400) {
        // Bounded: the oldest path is forgotten first (its next request asks for a 402 again).
        if (offers.size >= MAX_REMEMBERED_OFFERS && !offers.has(key)) offers.delete(offers.keys().next().value!)
        offers.set(key, offer)
      }
      return res
    }
    const payload = await signPayment(opts, chosen)
    // Only the payment-identifier is echoed: other declarations (gas sponsoring) carry what this client does not sign.
    const declared = v1 ? undefined : (required as PaymentRequired).extensions?.[PAYMENT_IDENTIFIER]
    // Sent only where the seller declares the extension, as the reference client does: a stock
    // seller that does not know it may refuse a payload carrying it (mppx's does).
    const id = v1 || !declared || opts.paymentId === false ? undefined : (opts.paymentId ?? newPaymentId)()
    const extensions = id ? withPaymentId({ [PAYMENT_IDENTIFIER]: declared }, id) : undefined
    const message: PaymentPayload | PaymentPayloadV1 = v1
      ? { x402Version: 1, scheme: chosen.scheme, network: chosen.network, payload }
      : // `accepted` must be the server's requirement exactly as sent: sellers compare it field by field.
        {
          x402Version: 2,
          accepted: (required as PaymentRequired).accepts[index]!,
          payload,
          resource: (required as PaymentRequired).resource,
          ...(extensions ? { extensions } : {}),
        }
    const h = new Headers(base)
    h.set(v1 ? headers.v1Payment : headers.signature, encodeHeader(message))
    const paid = () => send(h)
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

/** Where a channel offer is remembered: the method and the URL without its query (a seller prices a path). */
function offerKey(input: RequestInfo | URL, init?: RequestInit): string {
  const url = new URL(input instanceof Request ? input.url : String(input))
  return (
    `${(init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()} ` +
    `${url.origin}${url.pathname}`
  )
}

/**
 * One request paid through the offer's channel, one at a time per channel; a corrective 402 (our
 * total is not the seller's) is resynced from and paid once more.
 */
async function payByChannel(
  wallet: ChannelWallet,
  offer: ChannelOffer,
  send: (h: Headers) => Promise<Response>,
  base: HeadersInit | undefined,
): Promise<Response> {
  const ch = offer.channel
  return wallet.exclusive(ch, async () => {
    for (let attempt = 0; ; attempt++) {
      const { payload, deposit } = await wallet.payload(ch, offer.requirement)
      const h = new Headers(base)
      h.set(
        headers.signature,
        encodeHeader({
          x402Version: 2,
          accepted: offer.requirement,
          payload,
          resource: offer.resource,
        } satisfies PaymentPayload),
      )
      const res = await send(h)
      if (wallet.settled(ch, offer.requirement, settlementOf(res), res.status, deposit)) return res
      if (
        attempt > 0 ||
        res.status !== 402 ||
        !wallet.resync(ch, decodeHeader<PaymentRequired>(res.headers.get(headers.required)))
      )
        return res
      await res.body?.cancel().catch(() => {})
    }
  })
}

async function paymentRequired(
  res: Response,
  version?: 1 | 2,
): Promise<PaymentRequired | PaymentRequiredV1 | undefined> {
  const v2 = decodeHeader<PaymentRequired>(res.headers.get(headers.required))
  if (version !== 1 && v2 && Array.isArray(v2.accepts)) return v2
  if (version === 2) return undefined
  const body = (await res.json().catch(() => undefined)) as unknown
  return isRecord(body) && body.x402Version === 1 && Array.isArray(body.accepts)
    ? (body as PaymentRequiredV1)
    : undefined
}

/** The settlement a paid response reports (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE for v1). */
export function settlementOf(res: Response): SettleResponse | undefined {
  return decodeHeader<SettleResponse>(res.headers.get(headers.response) ?? res.headers.get(headers.v1Response))
}
