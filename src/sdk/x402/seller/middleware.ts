import type { IncomingMessage, ServerResponse } from 'node:http'
import { canonical } from '../canonical-json.js'
import { AUTH_CAPTURE } from '../evm/auth-capture/contracts.js'
import { BATCH_SETTLEMENT } from '../evm/batch-settlement/contracts.js'
import { runGuards, runObservers } from '../hooks.js'
import { declarePaymentIdentifier, PAYMENT_IDENTIFIER, paymentIdOf } from '../payment-identifier.js'
import { reasons } from '../reasons.js'
import {
  type PaymentRequired,
  type PaymentRequiredV1,
  type PaymentRequirements,
  type PaymentRequirementsV1,
  type ResourceInfo,
  type SettleResponse,
  type SupportedResponse,
  UPTO,
} from '../types.js'
import { decodeHeader, encodeHeader, headers, isRecord } from '../wire.js'
import { digest, keptAnswer, type Once, onceById, replay } from './answers/once.js'
import { type AnswerBounds, type AnswerStore, memoryAnswerStore } from './answers/store.js'
import { serveAuthCapturePayment } from './auth-capture/gate.js'
import { type HoldStore, memoryHoldStore } from './auth-capture/store.js'
import { serveChannelPayment } from './batch-settlement/gate.js'
import { type ChannelStore, memoryChannelStore } from './batch-settlement/store.js'
import { bazaarExtension, v1OutputSchema } from './bazaar.js'
import { type FacilitatorClientOptions, facilitatorClient, type SellerFacilitator } from './facilitator-client.js'
import { gasSponsoringExtensions } from './gas-sponsoring.js'
import { hookLists, type SellerHookContext, type SellerHooks } from './hooks.js'
import { type Offer, offersFor, type Price } from './offers.js'
import { bufferResponse } from './response-buffer.js'
import { SETTLEMENT_OVERRIDES_HEADER, takeSettlementAmount } from './usage.js'

export type RouteTerms = {
  prices: Price[]
  description?: string
  mimeType?: string
  /** Declare the route to bazaar crawlers (`extensions.bazaar` in v2, `outputSchema.input.discoverable` in v1). */
  discoverable?: boolean
}

export type PaymentGateOptions = {
  /** The facilitator's URL (and key), or a client of one (e.g. an in-process facilitator). */
  facilitator: FacilitatorClientOptions | SellerFacilitator
  /** `'GET /report'`, or `'/report'` for any method; a trailing `*` matches any rest of the path. */
  routes: Record<string, RouteTerms>
  /** How long the facilitator's /supported is trusted before it is read again. */
  supportedTtlMs?: number
  /** Verify and settle hooks (./hooks.ts), run in the order given. */
  hooks?: SellerHooks | SellerHooks[]
  /** Where an after-settle hook's failure is reported (it never changes the answer); default console.warn. */
  onHookError?: (err: unknown) => void
  /**
   * Declares the payment-identifier extension in every 402 when the facilitator supports it
   * (default `optional`): a buyer's id then makes its purchase idempotent at the facilitator, so
   * retrying the same payment is answered, never charged twice. `false`: not declared.
   */
  paymentIdentifier?: 'optional' | 'required' | false
  /**
   * batch-settlement routes: where channel state lives (default: this process's memory; replicas
   * share one, as the daemon's SQLite / PostgreSQL store does), and how long a mirrored on-chain
   * channel state lets vouchers be checked here without the facilitator (default 60 s).
   */
  channels?: { store?: ChannelStore; stateTtlMs?: number; tag?: string }
  /**
   * A payment sent again with the same payment id and payload (a buyer whose connection broke, a
   * retry) is answered what it was answered the first time, kept for `bounds.windowMs` (default 10
   * minutes; at most `maxEntries` answers, `maxBytes` in all, none over `maxAnswerBytes`): never a
   * refusal, and the handler is not run again, so a POST is one order. A repeat while the first is
   * still being served waits for its answer. Default: this process's memory; replicas pass a store
   * they share (the daemon's SQLite / PostgreSQL one). `tag` scopes ids when one store serves several gates.
   */
  answers?: { store?: AnswerStore; tag?: string; bounds?: Partial<AnswerBounds> }
  /**
   * auth-capture routes: where holds are recorded (what a deferred capture or a later refund
   * needs: paymentInfo and saltNonce). Default: this process's memory; `tag` marks whose they are.
   * The facilitator's `apiKey` must be a partner key bound to payTo: it is the seller's consent
   * to every capture, void and refund the facilitator's receiver authorizer signs.
   */
  holds?: { store?: HoldStore; tag?: string }
}

type Next = (err?: unknown) => unknown

/**
 * x402 for Node HTTP servers (express middleware, or around a plain `http` handler). Unpaid
 * requests to a priced route get 402 with PAYMENT-REQUIRED (v2) and the v1 body, never cached; a
 * paid one is verified with the facilitator, the handler runs with its response held back, and
 * only a handler that succeeded (status < 400) is settled: then the response goes out with
 * PAYMENT-RESPONSE. A failed handler is not charged; a failed settlement answers 402. `hooks`
 * (./hooks.ts) may refuse a payment before or after verify and before settle, and observe every
 * settle outcome.
 * A route priced with `scheme: 'upto'` (metered, EVM or Solana) charges what its handler reports with
 * `settleAmount(res, amount)` (./usage.ts; the reference's Settlement-Overrides header), at most
 * the price, which is then the maximum the payer signs for.
 * A route priced with `scheme: 'auth-capture'` (refundable, EVM) holds the buyer's maximum in escrow
 * before the handler runs, captures after it succeeded (what it reported, the rest voided) and
 * voids when it failed (./auth-capture/gate.ts); holds are kept in `holds.store` for later
 * captures and refunds (./auth-capture/lifecycle.ts).
 *
 * @example
 * app.use(paymentGate({
 *   facilitator: { url: 'http://127.0.0.1:8420/facilitator' },
 *   routes: { 'GET /weather': { prices: [{ network: 'local-base', asset: 'PUSD', amount: '10000000000000000', payTo }]
 * } },
 * }))
 */
export function paymentGate(o: PaymentGateOptions) {
  const facilitator = 'settle' in o.facilitator ? o.facilitator : facilitatorClient(o.facilitator)
  const ttl = o.supportedTtlMs ?? 300_000
  let supported: { at: number; value: Promise<SupportedResponse> } | undefined
  const currentSupported = () => {
    if (!supported || Date.now() - supported.at > ttl) {
      const value = facilitator.supported()
      supported = { at: Date.now(), value }
      value.catch(() => (supported = undefined))
    }
    return supported.value
  }
  const routes = Object.entries(o.routes).map(([pattern, terms]) => ({ ...parsePattern(pattern), terms }))
  const hooks = hookLists(o.hooks)
  const onHookError =
    o.onHookError ?? ((err: unknown) => console.warn('x402 seller: an onAfterSettle hook failed', err))
  const channels = o.channels?.store ?? memoryChannelStore()
  const answers = o.answers?.store ?? memoryAnswerStore(o.answers?.bounds)
  const holds = o.holds?.store ?? memoryHoldStore()

  return async function gate(req: IncomingMessage, res: ServerResponse, next: Next): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!
    const route = routes.find(
      (r) => (!r.method || r.method === req.method) && (r.prefix ? path.startsWith(r.path) : path === r.path),
    )
    if (!route) return void next()
    const resource: ResourceInfo = {
      url: `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
      description: route.terms.description ?? '',
      mimeType: route.terms.mimeType ?? '',
    }
    let offers: Offer[]
    let extensions: Record<string, unknown> | undefined
    try {
      const s = await currentSupported()
      offers = offersFor(route.terms.prices, s, resource)
      extensions = gasSponsoringExtensions(offers, s)
      if (route.terms.discoverable) {
        const bazaar = bazaarExtension(req.method ?? 'GET')
        extensions = { ...extensions, bazaar }
        offers = offers.map((x) => (x.v1 ? { ...x, v1: { ...x.v1, outputSchema: v1OutputSchema(bazaar) } } : x))
      }
      if (o.paymentIdentifier !== false && s.extensions?.includes(PAYMENT_IDENTIFIER)) {
        extensions = {
          ...extensions,
          [PAYMENT_IDENTIFIER]: declarePaymentIdentifier(o.paymentIdentifier === 'required'),
        }
      }
    } catch (e) {
      return void next(e)
    }
    const paymentRequired = (res: ServerResponse, offers: Offer[], resource: ResourceInfo, error: string) =>
      answer402(res, offers, resource, error, extensions)
    const v2Header = header(req, headers.signature)
    const v1Header = header(req, headers.v1Payment)
    const payment = decodeHeader(v2Header ?? v1Header)
    if (!payment)
      return paymentRequired(
        res,
        offers,
        resource,
        v2Header || v1Header ? 'invalid payment header' : 'payment required',
      )

    const candidates = matching(payment, offers)
    if (candidates.length === 0) return paymentRequired(res, offers, resource, 'no matching payment requirements')
    const first = candidates[0]!
    if (payment.x402Version === 2 && first.scheme === BATCH_SETTLEMENT && 'amount' in first) {
      return serveChannelPayment({
        req,
        res,
        payment,
        requirements: first,
        offers,
        decimals: offers.find((x) => x.v2 === first)?.decimals,
        facilitator,
        store: channels,
        ttlMs: o.channels?.stateTtlMs ?? 60_000,
        tag: o.channels?.tag ?? null,
        hooks,
        onHookError,
        ctx: { paymentPayload: payment, requirements: first, resource, req },
        paymentRequired: (list, error) => paymentRequired(res, list, resource, error),
        next: async () => next(),
      })
    }
    // A payment id (v2): a repeat of a payment served already is answered what it was; one in progress is waited for.
    const id =
      payment.x402Version === 2 ? paymentIdOf(isRecord(payment.extensions) ? payment.extensions : undefined) : undefined
    let once: Once | undefined
    if (typeof id === 'string' && 'payTo' in first) {
      once = await onceById(answers, {
        key: digest(o.answers?.tag ?? '', first.payTo.toLowerCase(), id),
        fingerprint: digest(req.method ?? '', path, canonical(payment)),
        bounds: o.answers?.bounds,
      })
      if (once.kind === 'answer') return replay(res, once.answer)
      if (once.kind === 'mismatch') return paymentRequired(res, offers, resource, reasons.paymentIdentifierMismatch)
    }
    let kept = false
    try {
      if (payment.x402Version === 2 && first.scheme === AUTH_CAPTURE && 'amount' in first) {
        const run = once?.kind === 'run' ? once : undefined
        kept = await serveAuthCapturePayment({
          req,
          res,
          payment,
          offer: first,
          offers,
          decimals: offers.find((x) => x.v2 === first)?.decimals,
          facilitator,
          store: holds,
          tag: o.holds?.tag ?? null,
          hooks,
          onHookError,
          ctx: { paymentPayload: payment, requirements: first, resource, req },
          paymentRequired: (error) => paymentRequired(res, offers, resource, error),
          next: async () => next(),
          keep: run
            ? (answer) =>
                run.keep(keptAnswer(answer)).then(
                  () => true,
                  (err) => (onHookError(err), false),
                )
            : undefined,
        })
        return
      }
      let accepted: PaymentRequirements | PaymentRequiredV1['accepts'][number] | undefined
      let lastReason = 'payment invalid'
      const ctxOf = (requirements: PaymentRequirements | PaymentRequirementsV1): SellerHookContext => ({
        paymentPayload: payment,
        requirements,
        resource,
        req,
      })
      for (const requirements of candidates) {
        const ctx = ctxOf(requirements)
        const before = await runGuards(hooks.beforeVerify, ctx, reasons.unexpectedVerifyError)
        if (before) return paymentRequired(res, offers, resource, before.reason)
        const v = await facilitator.verify({
          x402Version: payment.x402Version,
          paymentPayload: payment,
          paymentRequirements: requirements,
        })
        if (v.isValid) {
          const after = await runGuards(hooks.afterVerify, { ...ctx, result: v }, reasons.unexpectedVerifyError)
          if (after) return paymentRequired(res, offers, resource, after.reason)
          accepted = requirements
          break
        }
        lastReason = v.invalidReason ?? lastReason
      }
      if (!accepted) return paymentRequired(res, offers, resource, lastReason)

      const held = bufferResponse(res)
      try {
        await next()
      } catch (e) {
        held.release()
        throw e
      }
      const status = await held.ended
      // upto: the handler said what it used (./usage.ts); that, not the signed maximum, is settled.
      // exact charges its price whatever the handler reports (taken off unread): a report, even a
      // malformed one, never lowers what an exact payment pays nor costs the buyer its answer.
      const max = 'amount' in accepted ? accepted.amount : accepted.maxAmountRequired
      const used =
        accepted.scheme === UPTO
          ? takeSettlementAmount(res, max, offers.find((o) => o.v2 === accepted)?.decimals)
          : (res.removeHeader(SETTLEMENT_OVERRIDES_HEADER), max)
      if (status >= 400) return held.release()
      if (typeof used !== 'string') {
        held.discard()
        return paymentRequired(res, offers, resource, `invalid_settlement_amount: ${used.invalid}`)
      }
      const ctx = ctxOf(accepted)
      const refused = await runGuards(hooks.beforeSettle, ctx, reasons.unexpectedSettleError)
      if (refused) {
        held.discard()
        return paymentRequired(res, offers, resource, refused.reason)
      }
      const terms = accepted.scheme === UPTO && 'amount' in accepted ? { ...accepted, amount: used } : accepted
      const settled = await settleWithPendingRetry(facilitator, {
        x402Version: payment.x402Version,
        paymentPayload: payment,
        paymentRequirements: terms,
      })
      await runObservers(hooks.afterSettle, { ...ctx, result: settled }, onHookError)
      if (!settled.success) {
        held.discard()
        res.setHeader(payment.x402Version === 1 ? headers.v1Response : headers.response, encodeHeader(settled))
        return paymentRequired(res, offers, resource, settled.errorReason ?? 'settlement failed')
      }
      res.setHeader(payment.x402Version === 1 ? headers.v1Response : headers.response, encodeHeader(settled))
      // A paid answer belongs to the one who paid: no shared cache may hand it to another (x402 PR #2990).
      res.setHeader('Cache-Control', 'private')
      if (once?.kind === 'run') {
        // Kept before the buyer sees it: a repeat that arrives while it is on the wire is answered the same.
        // A store that cannot keep it does not cost the buyer the answer it paid for; the id is freed instead.
        kept = await once.keep(keptAnswer(held.recorded())).then(
          () => true,
          (err) => (onHookError(err), false),
        )
      }
      held.release()
    } finally {
      // Not answered 2xx (refused, failed, thrown): nothing was charged, and a retry is served anew.
      if (once?.kind === 'run' && !kept) await once.release()
    }
  }
}

/**
 * Settles, and once more when the answer is `settlement_pending` with a transaction: the
 * facilitator then waits for that transaction (it never broadcasts a second one), as the
 * reference's resource server and PendingSettlementStore do. Still pending after that, the buyer
 * is answered 402 naming the transaction; the same payment sent again (same payment id) is
 * answered from the facilitator's ledger once the chain decided it.
 */
async function settleWithPendingRetry(
  facilitator: SellerFacilitator,
  body: Record<string, unknown>,
): Promise<SettleResponse> {
  const once = () =>
    facilitator.settle(body).catch(
      (e: Error): SettleResponse => ({
        success: false,
        errorReason: reasons.unexpectedSettleError,
        errorMessage: e.message,
        transaction: '',
        network: '',
      }),
    )
  const first = await once()
  return !first.success && first.errorReason === reasons.settlementPending && first.transaction ? once() : first
}

function parsePattern(pattern: string) {
  const [a, b] = pattern.trim().split(/\s+/)
  const method = b ? a!.toUpperCase() : undefined
  const p = b ?? a!
  return { method, path: p.endsWith('*') ? p.slice(0, -1) : p, prefix: p.endsWith('*') }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

/** The offers a payment may be for: v2 names its requirement exactly; v1 names only scheme and network. */
function matching(payment: Record<string, unknown>, offers: Offer[]) {
  if (payment.x402Version === 2 && isRecord(payment.accepted)) {
    const a = payment.accepted as Partial<PaymentRequirements>
    const same = (x?: string, y?: string) => String(x ?? '').toLowerCase() === String(y ?? '').toLowerCase()
    return offers
      .map((o) => o.v2)
      .filter(
        (r) =>
          r.scheme === a.scheme &&
          r.network === a.network &&
          same(r.asset, a.asset) &&
          r.amount === a.amount &&
          same(r.payTo, a.payTo) &&
          r.extra.assetTransferMethod === a.extra?.assetTransferMethod,
      )
  }
  if (payment.x402Version === 1)
    return offers.flatMap((o) =>
      o.v1 && o.v1.scheme === payment.scheme && o.v1.network === payment.network ? [o.v1] : [],
    )
  return []
}

function answer402(
  res: ServerResponse,
  offers: Offer[],
  resource: ResourceInfo,
  error: string,
  extensions?: Record<string, unknown>,
): void {
  const v2: PaymentRequired = {
    x402Version: 2,
    error,
    resource,
    accepts: offers.map((o) => o.v2),
    ...(extensions ? { extensions } : {}),
  }
  const v1: PaymentRequiredV1 = { x402Version: 1, error, accepts: offers.flatMap((o) => (o.v1 ? [o.v1] : [])) }
  res.statusCode = 402
  res.setHeader(headers.required, encodeHeader(v2))
  // A 402 names fresh terms and must never be served from a cache.
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Content-Type', 'application/json')
  res.end(JSON.stringify(v1))
}
