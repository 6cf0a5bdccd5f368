import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import { networks } from '../../../src/networks/registry.js'
import { sendableTokens } from '../../../src/sdk/platform/networks.js'
import type { ChosenOffer, PayAnswer, Price } from '../../../src/sdk/platform/pay.js'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import type { PaymentRequired } from '../../../src/sdk/x402/types.js'
import { decodeHeader, headers as x402Headers } from '../../../src/sdk/x402/wire.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { egressRefusal } from '../../egress/guard.js'
import type { AgentRow } from '../../platform/store.js'
import type { ApprovalGateDeps } from '../approvals/gate.js'
import { type ChannelSettings, payWithChannel } from '../batch-settlement/pay.js'
import type { ChannelStore } from '../batch-settlement/store.js'
import { channelTerms } from '../batch-settlement/terms.js'
import { holdReceipt, recordHold } from '../holds/pay.js'
import type { AgentHoldStore } from '../holds/store.js'
import {
  NO_SCOPED_RULES,
  type Payee,
  type Refusal,
  refusalError,
  refusalOf,
  type ScopedRules,
} from '../policy/rules.js'
import { dryRunVerdict } from '../policy/verdict.js'
import type { ReceiptIssuer } from '../receipts/issue.js'
import type { SpendsLedger } from '../spends.js'
import { mppQuotes } from './mpp.js'
import { type PricedRequest, priceGate } from './price-gate.js'
import { type PaymentProof, usedIn, wasUsed } from './proof.js'
import { type Offered, type Quote, type QuoteContext, VALIDITY_SECONDS, validitySeconds } from './quote.js'
import { MAX_TERMS_BODY, passThrough, readBounded } from './seller-body.js'
import { x402Quotes } from './x402.js'

export type PayDeps = {
  chain: EvmChain
  spends: SpendsLedger
  walletKey(agent: AgentRow): Hex
  timeoutMs?: number
  /** The longest a signed payment stays valid (config `pay.validitySeconds`). */
  maxValiditySeconds?: number
  /** x402 auth-capture (./auth-capture.ts): preferred over exact unless false (config `pay.preferAuthCapture`). */
  preferAuthCapture?: boolean
  /** Where the auth-capture holds are recorded. */
  holds?: AgentHoldStore
  /** How the seller is fetched: the guarded egress fetch in the daemon (daemon/egress/), plain fetch by default. */
  fetch?: SellerFetch
  /** x402 batch-settlement channels (daemon/buyer/batch-settlement/): without them, such offers are not taken. */
  channels?: { store: ChannelStore; settings: ChannelSettings }
  /** Signs and stores each settled pay's receipt (daemon/buyer/receipts/); absent: pays carry no signed receipt. */
  receipts?: ReceiptIssuer
  /** The agent's and its user's payee and network rules (daemon/buyer/policy/); none when left out. */
  rules?: ScopedRules
  /** Approval above the agent's threshold (daemon/buyer/approvals/): without it, no approval is ever asked. */
  approvals?: ApprovalGateDeps
}
/** A pay as the route hands it over: the fields the price gate reads are the whole request. */
export type PayRequest = PricedRequest

/** How long the seller may take on each request before the payment is abandoned. */
const DEFAULT_TIMEOUT_MS = 30_000

/**
 * POST /api/agents/:id/pay: x402 (v2 header, v1 body) and MPP (`WWW-Authenticate: Payment`, evm
 * charge). The price comes from the seller's 402: the platform picks an offer on the agent's
 * network in one of its tokens (x402 first, then MPP), checks maxAmount, reserves the amount against
 * the limits (host allow-list included) before signing, pays with the agent's wallet and retries
 * once. Whether money moved is read from the chain (the signed permit or authorization used or
 * not), never only from the seller's word: a seller that fails, refuses or hangs after the payment
 * gets `charged` as the chain says. Every signature is valid for at most `maxValiditySeconds`, and
 * a reservation is released only once its signed payment has expired unused (see `decide`).
 */
export async function payForAgent(d: PayDeps, agent: AgentRow, req: PayRequest): Promise<PayAnswer> {
  const timeout = d.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const host = new URL(req.url).hostname.toLowerCase()
  const rules = d.rules ?? NO_SCOPED_RULES
  // Before the first request, not only before paying: a host the rules refuse is not contacted at all.
  const hostRefused = refusalOf(rules, { host })
  if (hostRefused) {
    if (req.dryRun) return dryRunVerdict(d.spends, agent, { offer: null, ruleRefusal: hostRefused })
    throw refusalError(hostRefused)
  }
  // Every request to the seller goes through the deployment's egress fetch (refusals are EGRESS_REFUSED, before
  // anything is signed).
  const sellerFetch = (url: string, i: RequestInit, afterPayment: boolean) =>
    fetchSeller(d.fetch ?? fetch, url, i, afterPayment)
  const init = (extra: Record<string, string> = {}): RequestInit => ({
    method: req.method,
    headers: { ...req.headers, ...extra },
    body: req.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeout),
  })
  if (req.scheme && req.protocol === 'mpp')
    throw new BaseError('BAD_REQUEST', `scheme ${req.scheme} is an x402 scheme; it cannot be paid with protocol mpp`)
  const first = await sellerFetch(req.url, init(), false)
  if (first.status !== 402) {
    if (req.dryRun) {
      await first.body?.cancel().catch(() => {})
      return dryRunVerdict(d.spends, agent, { offer: null, ruleRefusal: null })
    }
    return { dryRun: false, ...(await passThrough(first)), receipt: null }
  }
  const network = networks[agent.network]!
  const tokens = sendableTokens(network).flatMap((t) => (d.chain.tokens[t.symbol] ? [d.chain.tokens[t.symbol]!] : []))
  const ctx: QuoteContext = {
    chain: d.chain,
    tokens,
    signer: privateKeyToAccount(d.walletKey(agent)),
    url: req.url,
    maxValiditySeconds: d.maxValiditySeconds ?? VALIDITY_SECONDS.default,
    scheme: { only: req.scheme, preferAuthCapture: d.preferAuthCapture ?? true },
  }
  // An offer the rules refuse is passed over for the next one the agent can pay; only when every
  // payable offer is refused is the first refusal the answer (the offer that would have been taken).
  const refused: { offer: ChosenOffer; refusal: Refusal }[] = []
  const allowed = (offer: ChosenOffer, payee: Payee): boolean => {
    const r = refusalOf(rules, payee)
    if (r) refused.push({ offer, refusal: r })
    return r === null
  }
  const payeeOf = (payTo: string, token: { symbol: string; address: string }): Payee => ({
    payTo,
    network: { key: network.key, caip2: network.caip2 },
    tokens: [{ symbol: token.symbol, address: token.address }],
  })
  // A scheme asked for by name is paid per request: no channel.
  if (d.channels && req.protocol !== 'mpp' && !req.scheme) {
    const paid = await viaChannel(d, d.channels, agent, req, ctx, first, host, init, sellerFetch, allowed, payeeOf)
    if (paid) return paid
  }
  const offerOf = (q: Quote): ChosenOffer => ({
    protocol: q.protocol,
    scheme: q.scheme ?? (q.protocol === 'mpp' ? 'charge' : 'exact'),
    amount: fromBaseUnits(q.raw, q.token.decimals),
    token: q.token.symbol,
    network: network.key,
    payTo: q.payTo,
  })
  let chosen: Quote
  try {
    chosen = await chooseQuote(ctx, first, req.scheme ? 'x402' : req.protocol, (q) =>
      allowed(offerOf(q), payeeOf(q.payTo, q.token)),
    )
  } catch (e) {
    const r = refused[0]
    if (!r || !(e instanceof BaseError) || e.code !== 'SELLER_METHOD_UNSUPPORTED') throw e
    if (req.dryRun) return dryRunVerdict(d.spends, agent, { offer: r.offer, ruleRefusal: r.refusal })
    throw refusalError(r.refusal, r.offer.amount)
  }
  const amount = fromBaseUnits(chosen.raw, chosen.token.decimals)
  const price: Price = {
    protocol: chosen.protocol,
    amount,
    token: chosen.token.symbol,
    network: network.key,
    payTo: chosen.payTo,
  }
  const gated = await priceGate(
    d,
    agent,
    req,
    offerOf(chosen),
    { raw: chosen.raw, decimals: chosen.token.decimals },
    host,
  )
  if ('dryRun' in gated) return gated
  const { amountMicros } = gated
  const spend = await d.spends.reserve({
    agentId: agent.id,
    kind: 'pay',
    amountMicros,
    token: chosen.token.symbol,
    amount,
    recipient: chosen.payTo,
    host,
  })
  let proof: PaymentProof | undefined
  let paid: Response
  try {
    const signed = await chosen.sign()
    // Persisted before the seller sees the signature: from then on only the chain releases the spend.
    await d.spends.signed(spend.id, signed.proof)
    proof = signed.proof
    // A hold is recorded before the seller can place it: from then on the leader follows it on chain.
    if (chosen.hold && d.holds)
      await recordHold(d.holds, d.chain, { agent, spendId: spend.id, token: chosen.token, hold: chosen.hold })
    paid = await sellerFetch(req.url, init(signed.headers), true)
      // The same payment (same payment-identifier) once more: no answer may have been lost, and a
      // settlement still pending is answered from the facilitator's ledger; never a second charge.
      .catch((e) =>
        signed.idempotent && e instanceof SellerUnreachable
          ? sellerFetch(req.url, init(signed.headers), true)
          : Promise.reject(e),
      )
    if (signed.idempotent && paid.status === 402 && chosen.settlement(paid).reason === 'settlement_pending') {
      await paid.body?.cancel().catch(() => {})
      paid = await sellerFetch(req.url, init(signed.headers), true)
    }
  } catch (e) {
    // Nothing signed: nothing can move. Signed and no answer: whether it settled shows on chain,
    // and while it is still usable the spend stays reserved.
    if (proof === undefined) {
      await d.spends.release(spend.id, (e as Error).message)
      throw e instanceof BaseError && !(e instanceof SellerUnreachable)
        ? e
        : new BaseError('SELLER_FAILED', `${(e as Error).message}; nothing was charged`, {
            fields: { charged: false, transaction: null, reservedUntil: null },
          })
    }
    const outcome = await decide(d, spend.id, proof, (e as Error).message, price)
    if (e instanceof BaseError && !(e instanceof SellerUnreachable)) throw e
    throw new BaseError('SELLER_FAILED', `${(e as Error).message}; ${outcome.message}`, { fields: outcome.fields })
  }
  const settlement = chosen.settlement(paid)
  if (!settlement.transaction) {
    // The seller names no settlement; the chain still decides whether the agent paid.
    const code = paid.status === 402 ? 'PAYMENT_REFUSED' : 'SELLER_FAILED'
    const why =
      paid.status === 402
        ? `the seller refused the payment (${settlement.reason ?? (await refusal(paid))})`
        : `the seller answered ${paid.status} after the payment was offered`
    const outcome = await decide(d, spend.id, proof!, `seller answered ${paid.status} without a settlement`, price)
    if (outcome.fields.charged && paid.status < 400) {
      const transaction = outcome.fields.transaction
      const signed = transaction ? await issue(d, agent, host, spend.id, chosen, transaction, paid) : undefined
      return {
        dryRun: false,
        ...(await passThrough(paid)),
        receipt: transaction ? { ...price, transaction, payer: ctx.signer.address, ...signed } : null,
      }
    }
    await paid.body?.cancel().catch(() => {})
    throw new BaseError(code, `${why}; ${outcome.message}`, { fields: outcome.fields })
  }
  await d.spends.confirm(spend.id, { tx: settlement.transaction })
  // What the seller says became of a hold (captured, the rest voided) comes back to the limits now; the chain has the
  // last word (./holds/refresh.ts).
  const hold =
    chosen.hold && d.holds
      ? await holdReceipt(d.holds, chosen.hold, chosen.token, settlement.outcome, settlement.transaction)
      : undefined
  const signed = await issue(d, agent, host, spend.id, chosen, settlement.transaction, paid)
  return {
    dryRun: false,
    ...(await passThrough(paid)),
    receipt: {
      ...price,
      transaction: settlement.transaction,
      payer: ctx.signer.address,
      ...(hold ? { hold } : {}),
      ...signed,
    },
  }
}

/** The settled pay's signed receipt, stored before the agent hears of the pay (nothing without a receipt key). */
async function issue(
  d: PayDeps,
  agent: AgentRow,
  host: string,
  paymentId: string,
  q: Quote,
  transaction: string,
  paid: Response,
) {
  const signed = await d.receipts?.issue({
    paymentId,
    agent,
    host,
    payTo: q.payTo,
    network: d.chain.spec.caip2,
    token: q.token,
    amount: q.raw,
    protocol: q.protocol,
    transaction,
    seller: paid,
  })
  return signed ? { signed } : {}
}

/**
 * A seller offering x402 `batch-settlement` on the agent's network is paid through the agent's
 * channel to it (daemon/buyer/batch-settlement/pay.ts); undefined when it offers none, so the other
 * offers are read as usual. A bogus offer is refused (CHANNEL_TERMS_REFUSED), not skipped.
 */
async function viaChannel(
  d: PayDeps,
  channels: NonNullable<PayDeps['channels']>,
  agent: AgentRow,
  req: PayRequest,
  ctx: QuoteContext,
  first: Response,
  host: string,
  init: (extra?: Record<string, string>) => RequestInit,
  sellerFetch: (url: string, i: RequestInit, afterPayment: boolean) => Promise<Response>,
  allowed: (offer: ChosenOffer, payee: Payee) => boolean,
  payeeOf: (payTo: string, token: { symbol: string; address: string }) => Payee,
): Promise<PayAnswer | undefined> {
  const required = decodeHeader<PaymentRequired>(first.headers.get(x402Headers.required))
  if (required?.x402Version !== 2 || !Array.isArray(required.accepts)) return undefined
  const terms = await channelTerms(
    ctx.chain,
    ctx.tokens,
    ctx.signer.address,
    required.accepts.filter((r) => r && typeof r === 'object' && typeof r.amount === 'string'),
    channels.settings,
  )
  if (!terms) return undefined
  const amount = fromBaseUnits(terms.price, terms.token.decimals)
  const price: Price = {
    protocol: 'x402-v2',
    amount,
    token: terms.token.symbol,
    network: agent.network,
    payTo: terms.config.receiver,
  }
  // Refused by a rule: the seller's other offers are read as if it offered no channel.
  if (!allowed({ ...price, scheme: 'batch-settlement' }, payeeOf(terms.config.receiver, terms.token))) return undefined
  await first.body?.cancel().catch(() => {})
  const gated = await priceGate(
    d,
    agent,
    req,
    { ...price, scheme: 'batch-settlement' },
    { raw: terms.price, decimals: terms.token.decimals },
    host,
  )
  if ('dryRun' in gated) return gated
  return payWithChannel({
    chain: d.chain,
    spends: d.spends,
    channels: channels.store,
    settings: channels.settings,
    agent,
    signer: ctx.signer,
    url: req.url,
    host,
    terms,
    resource: required.resource,
    validSeconds: validitySeconds(terms.requirement.maxTimeoutSeconds ?? 60, ctx.maxValiditySeconds),
    timeoutMs: d.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    send: (headers) => sellerFetch(req.url, init(headers), true),
    receipts: d.receipts,
  })
}

/**
 * A signed payment the seller did not settle (refused, failed, no answer): used on chain means
 * charged (the spend is confirmed); otherwise nothing moved YET, and the spend stays reserved until
 * the payment expires, because the seller still holds a signature it can submit until then (the
 * worker leader decides it afterwards: daemon/buyer/pending-spends.ts). A chain that does not
 * answer decides nothing: the spend stays reserved too, never released.
 */
async function decide(d: PayDeps, spendId: string, proof: PaymentProof, reason: string, price: Price) {
  const used = await wasUsed(d.chain, proof)
  if (used === true) {
    const transaction = await usedIn(d.chain, proof)
    await d.spends.confirm(spendId, { tx: transaction })
    return {
      message: `the payment was settled${transaction ? ` in ${transaction}` : ''}`,
      fields: { charged: true, transaction, reservedUntil: null },
    }
  }
  const until = new Date(Number(proof.validBefore) * 1000).toISOString()
  await d.spends.hold(spendId, `${reason}; reserved until ${until}`)
  return {
    message:
      `nothing was charged yet${used === undefined ? ' (the chain did not answer)' : ''}: the signed ` +
      `payment stays valid on chain until ${until}, so ${price.amount} ${price.token} stays reserved ` +
      `against this agent's limits until then, and is released once the chain shows it unused after that time`,
    fields: { charged: false, transaction: null, reservedUntil: until },
  }
}

/**
 * The first payable offer (x402 before MPP, or only the protocol asked for); the errors say what was offered and why
 * none fits.
 */
async function chooseQuote(
  ctx: QuoteContext,
  res: Response,
  only: 'x402' | 'mpp' | undefined,
  allowed: (q: Quote) => boolean,
): Promise<Quote> {
  const www = res.headers.get('www-authenticate')
  const header = res.headers.get(x402Headers.required)
  let body: unknown
  if (!header) {
    const { buf } = await readBounded(res, MAX_TERMS_BODY)
    try {
      body = JSON.parse(buf.toString('utf8'))
    } catch {}
  } else {
    await res.body?.cancel().catch(() => {})
  }
  const read = [
    ...(only === 'mpp' ? [] : [() => x402Quotes(ctx, header, body)]),
    ...(only === 'x402' ? [] : [() => mppQuotes(ctx, www)]),
  ]
  const offered: string[] = []
  let malformed: unknown
  let any = false
  for (const r of read) {
    try {
      const o = await r()
      if (!o) continue
      any = true
      const q = o.quotes.find(allowed)
      if (q) return q
      offered.push(...o.offered)
    } catch (e) {
      malformed ??= e
    }
  }
  if (malformed) throw malformed
  if (!any && only)
    await notOffered(only, only === 'mpp' ? () => x402Quotes(ctx, header, body) : () => mppQuotes(ctx, www))
  if (!any)
    throw new BaseError(
      'SELLER_TERMS_MALFORMED',
      'the seller answered 402 without payment terms (no PAYMENT-REQUIRED header, ' +
        'x402 v1 body or WWW-Authenticate Payment challenge); nothing was paid',
    )
  throw new BaseError(
    'SELLER_METHOD_UNSUPPORTED',
    `the seller offers ${offered.join('; ') || 'nothing'}; this agent pays on ${ctx.chain.key} ` +
      `(${ctx.chain.spec.caip2}) in ${ctx.tokens.map((t) => t.symbol).join(', ')} with ` +
      `x402 (erc2612, eip3009) or MPP evm/charge (EIP-3009 tokens); nothing was paid`,
  )
}

/** The seller asked for payment, only not with the protocol asked for: say so, and what it offers instead. */
async function notOffered(
  only: 'x402' | 'mpp',
  other: () => Offered | undefined | Promise<Offered | undefined>,
): Promise<void> {
  let o: { offered: string[] } | undefined
  try {
    o = await other()
  } catch {}
  if (!o) return
  const [asked, instead] =
    only === 'mpp'
      ? ['MPP (no WWW-Authenticate: Payment challenge)', 'x402']
      : ['x402 (no PAYMENT-REQUIRED header or x402 v1 body)', 'MPP']
  throw new BaseError(
    'SELLER_METHOD_UNSUPPORTED',
    `the seller does not offer ${asked}; it offers ${instead} (${o.offered.join('; ')}): ` +
      `pay it with protocol ${instead.toLowerCase()} or none; nothing was paid`,
  )
}

class SellerUnreachable extends BaseError {}

type SellerFetch = (url: string, init: RequestInit) => Promise<Response>

async function fetchSeller(f: SellerFetch, url: string, init: RequestInit, afterPayment: boolean): Promise<Response> {
  try {
    return await f(url, init)
  } catch (e) {
    // Refused by the egress guard: no connection was opened, so nothing reached the seller.
    const refused = egressRefusal(e)
    if (refused) throw refused
    const timedOut = (e as Error).name === 'TimeoutError'
    const what = timedOut
      ? 'the seller did not answer in time'
      : `the seller could not be reached (${(e as Error).message})`
    if (!afterPayment)
      throw new BaseError('SELLER_FAILED', `${what}; nothing was paid`, {
        fields: { charged: false, transaction: null },
        cause: e,
      })
    throw new SellerUnreachable('SELLER_FAILED', what, { cause: e })
  }
}

/** Why a 402 after payment refused it: x402's `error`, or an MPP problem document's `detail`. */
async function refusal(res: Response): Promise<string> {
  const { buf } = await readBounded(res, MAX_TERMS_BODY)
  try {
    const b = JSON.parse(buf.toString('utf8')) as Record<string, unknown>
    const why = b.error ?? b.detail ?? b.title
    if (typeof why === 'string') return why
  } catch {}
  return `status ${res.status}`
}
