import type { IncomingMessage, ServerResponse } from 'node:http'
import { toBaseUnits } from '../../src/sdk/units.js'
import { BATCH_SETTLEMENT } from '../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { digest, keptAnswer, onceById, replay } from '../../src/sdk/x402/seller/answers/once.js'
import type { AnswerStore, KeptAnswer } from '../../src/sdk/x402/seller/answers/store.js'
import type { HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { ChannelStore } from '../../src/sdk/x402/seller/batch-settlement/store.js'
import type { SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { SellerHooks } from '../../src/sdk/x402/seller/hooks.js'
import { paymentGate } from '../../src/sdk/x402/seller/middleware.js'
import { SETTLEMENT_OVERRIDES_HEADER } from '../../src/sdk/x402/seller/usage.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import { readBounded } from '../buyer/pay/seller-body.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { PAID_ANSWER_HEADERS, toBuyer, toUpstream } from '../egress/headers.js'
import { currentRequestId } from '../http/request-id.js'
import { STORE_ANSWER_BOUNDS } from './answer-store.js'
import type { EndpointRow } from './endpoints.js'
import { type MppGate, mppGate } from './paid-mpp.js'
import { endpointPrices } from './prices.js'
import { upstreamUsage } from './upstream-usage.js'

/**
 * How long the upstream may take when the caller names no `timeoutMs` (the daemon passes config
 * `platform.paidUpstreamTimeoutMs`, default the same); past it the buyer gets 504 and is not
 * charged. Shorter than pay's own wait (30 s), so a platform buyer hears the 504.
 */
const UPSTREAM_TIMEOUT_MS = 20_000
/**
 * The largest upstream answer relayed, read while it streams: past it the buyer gets 502 and is
 * not charged (a cut answer would be paid for and broken). Held in memory until settled.
 */
export const MAX_UPSTREAM_BODY = 10 * 1024 * 1024

type Paid = {
  endpoint: EndpointRow
  chain: EvmChain
  facilitatorUrl: string
  mppSecret: string
  req: IncomingMessage
  res: ServerResponse
  body: ArrayBuffer
  /** How long the upstream may take, ms (config `platform.paidUpstreamTimeoutMs`); default UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number
  /** How the upstream is fetched: the guarded egress fetch in the daemon (daemon/egress/), plain fetch by default. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** Told every settle outcome, x402 or MPP, before the buyer's answer goes out (the settlement webhook). */
  onSettled?: (o: PaidSettlement) => Promise<void>
  onHookError?: (err: unknown) => void
  /** Batch-settlement channels of the platform's endpoints (the store's x402_seller_channels), shared by replicas. */
  channels?: ChannelStore
  /**
   * Answers by payment id (x402 payment-identifier, or the MPP credential), shared by replicas: a repeated payment gets
   * the first answer.
   */
  answers?: AnswerStore
  /**
   * The daemon's facilitator in process, acting for this endpoint's payTo (./paid-facilitator.ts):
   * what lets a buyer's cooperative refund be signed by our receiver authorizer. Absent: HTTP to facilitatorUrl.
   */
  facilitator?: SellerFacilitator
  /** auth-capture holds of the platform's endpoints (the store's x402_seller_holds), shared by replicas. */
  holds?: HoldStore
}

/** One settle outcome of a paid call: the payment as sent (its identity) and the facilitator's answer. */
export type PaidSettlement = { payment: unknown; protocol: 'x402' | 'mpp'; result: SettleResponse }

/**
 * Serves one seller endpoint at /paid/<id>. An unpaid request gets 402 with x402 v2 (header), x402
 * v1 (body) and, for EIP-3009 tokens, an MPP challenge (`WWW-Authenticate: Payment`). An x402
 * payment goes through our seller middleware (src/sdk/x402/seller); an MPP credential
 * (`Authorization: Payment`) through a stock mppx server (paid-mpp.ts). Both verify with our
 * facilitator, forward to the upstream, and settle only when the upstream answered below 400: an
 * upstream that fails or hangs is never charged.
 */
export async function servePaid(p: Paid): Promise<void> {
  // Every answer of the paid URL, ours or the upstream's: third-party content stays sandboxed (egress/headers.ts).
  for (const [k, v] of Object.entries(PAID_ANSWER_HEADERS)) p.res.setHeader(k, v)
  const mpp = mppGate({ endpoint: p.endpoint, chain: p.chain, facilitatorUrl: p.facilitatorUrl, secret: p.mppSecret })
  const auth = p.req.headers.authorization
  if (mpp && auth && /^Payment\s/i.test(auth)) return serveMpp(p, mpp, auth)
  if (mpp) await challengeOn402(p, mpp)
  const e = p.endpoint
  const gate = paymentGate({
    facilitator: p.facilitator ?? { url: p.facilitatorUrl },
    routes: {
      [`/paid/${e.id}`]: {
        prices: endpointPrices(e, p.chain),
        description: e.description ?? e.name ?? '',
        discoverable: Number(e.discoverable) === 1,
      },
    },
    hooks: p.onSettled ? [settledHook(p.onSettled)] : [],
    onHookError: p.onHookError,
    channels: p.channels ? { store: p.channels, tag: e.id } : undefined,
    answers: p.answers ? { store: p.answers, tag: e.id, bounds: STORE_ANSWER_BOUNDS } : undefined,
    holds: p.holds ? { store: p.holds, tag: e.id } : undefined,
  })
  let failure: unknown
  await gate(p.req, p.res, async (err?: unknown) => {
    if (err) {
      failure = err
      return
    }
    const up = await forward(p)
    p.res.statusCode = up.status
    for (const [k, v] of Object.entries(up.headers)) p.res.setHeader(k, v)
    // What the upstream used, for the gate to capture (auth-capture) or charge (batch-settlement); the gate takes it
    // off.
    if (up.usage !== undefined) p.res.setHeader(SETTLEMENT_OVERRIDES_HEADER, up.usage)
    p.res.end(up.body)
  })
  if (failure) throw failure
}

const settledHook = (onSettled: NonNullable<Paid['onSettled']>): SellerHooks => ({
  // A channel's vouchers move no money; its webhook is the worker's claim-and-settle
  // (daemon/seller/batch-settlement/claim-duty.ts).
  onAfterSettle: ({ paymentPayload, requirements, result }) =>
    requirements.scheme === BATCH_SETTLEMENT
      ? Promise.resolve()
      : onSettled({ payment: paymentPayload, protocol: 'x402', result }),
})

/** Any 402 this request gets (unpaid, or an x402 payment refused) also names the MPP challenge. */
async function challengeOn402(p: Paid, mpp: MppGate): Promise<void> {
  const challenge = await mpp.challenge(p.req)
  if (!challenge) return
  const res = p.res
  const end = res.end
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (res.statusCode === 402 && !res.headersSent && !res.hasHeader('www-authenticate'))
      res.setHeader('WWW-Authenticate', challenge)
    return (end as (...a: unknown[]) => ServerResponse).apply(res, args)
  } as typeof res.end
}

/**
 * An MPP credential. The same credential sent again (a buyer whose connection broke) is answered
 * what it was the first time, and waits while the first is still being served: never refused
 * because its authorization is spent, and the upstream is not called again.
 */
async function serveMpp(p: Paid, mpp: MppGate, credential: string): Promise<void> {
  if (!p.answers) return serveMppOnce(p, mpp, credential)
  const once = await onceById(p.answers, {
    key: digest('mpp', p.endpoint.id, credential),
    fingerprint: digest(p.req.method ?? '', credential),
    bounds: STORE_ANSWER_BOUNDS,
  })
  if (once.kind === 'answer') return replay(p.res, once.answer)
  if (once.kind === 'mismatch')
    return refuse(
      p,
      mpp,
      'this credential already paid for a request with another method; a new request needs a new credential',
    )
  let kept = false
  try {
    await serveMppOnce(p, mpp, credential, async (a) => {
      kept = await once.keep(a).then(
        () => true,
        (err) => (p.onHookError?.(err), false),
      )
    })
  } finally {
    if (!kept) await once.release()
  }
}

/**
 * Validate (no money moves), forward, settle only after a successful upstream; `keep` is given the paid answer before
 * it is sent.
 */
async function serveMppOnce(
  p: Paid,
  mpp: MppGate,
  credential: string,
  keep?: (a: KeptAnswer) => Promise<void>,
): Promise<void> {
  const valid = await mpp.validate(credential)
  if (!valid.ok) return refuse(p, mpp, `the MPP credential was refused: ${valid.reason}`)
  const up = await forward(p)
  if (up.status >= 400) {
    p.res.statusCode = up.status
    for (const [k, v] of Object.entries(up.headers)) p.res.setHeader(k, v)
    return void p.res.end(up.body)
  }
  const settled = await mpp.settle(credential)
  const network = `eip155:${p.chain.chainId}`
  const result: SettleResponse = settled.ok
    ? { success: true, transaction: settled.transaction, network }
    : { success: false, errorReason: 'mpp_settle_failed', errorMessage: settled.reason, transaction: '', network }
  await p.onSettled?.({ payment: credential, protocol: 'mpp', result }).catch((err) => p.onHookError?.(err))
  if (!settled.ok) return refuse(p, mpp, `the MPP payment could not be settled: ${settled.reason}`)
  p.res.statusCode = up.status
  for (const [k, v] of Object.entries(up.headers)) p.res.setHeader(k, v)
  p.res.setHeader('Payment-Receipt', settled.receipt)
  // MPP requires it as x402 does: a paid answer is for the payer only, never a shared cache.
  p.res.setHeader('Cache-Control', 'private')
  await keep?.(keptAnswer({ status: up.status, headers: headersOf(p.res), body: up.body }))
  p.res.end(up.body)
}

const headersOf = (res: ServerResponse): Record<string, string | string[]> =>
  Object.fromEntries(
    Object.entries(res.getHeaders()).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, Array.isArray(v) ? v : String(v)]],
    ),
  )

/** 402 with a fresh challenge and an RFC 9457 problem document, as MPP answers a refused credential. */
async function refuse(p: Paid, mpp: MppGate, detail: string): Promise<void> {
  const challenge = await mpp.challenge(p.req)
  p.res.statusCode = 402
  if (challenge) p.res.setHeader('WWW-Authenticate', challenge)
  p.res.setHeader('Cache-Control', 'no-store')
  p.res.setHeader('Content-Type', 'application/problem+json')
  p.res.end(
    JSON.stringify({
      type: 'https://paymentauth.org/problems/verification-failed',
      title: 'Payment verification failed',
      status: 402,
      detail,
    }),
  )
}

/**
 * The upstream's answer, or 502 / 504 (`SELLER_FAILED`) when it fails, hangs or answers more than
 * MAX_UPSTREAM_BODY. Headers cross by allow-list both ways (egress/headers.ts); a redirect is
 * relayed as its status without its Location, never followed. An upstream the egress guard
 * refuses looks to the buyer like one that cannot be reached: nothing about the inside leaks.
 */
async function forward(
  p: Paid,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer; usage?: string }> {
  const e = p.endpoint
  const url = p.req.url ?? ''
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : ''
  const failed = (status: number, why: string) => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(
      JSON.stringify({
        error: `the upstream ${why}; you were not charged`,
        code: 'SELLER_FAILED',
        requestId: currentRequestId(),
      }),
    ),
  })
  try {
    const up = await (p.fetch ?? fetch)(e.upstream_url + query, {
      method: p.req.method,
      headers: withOurRequestId(toUpstream(p.req.headers)),
      body: ['GET', 'HEAD'].includes(p.req.method ?? 'GET') ? undefined : Buffer.from(p.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(p.timeoutMs ?? UPSTREAM_TIMEOUT_MS),
    })
    const tooLarge = () => failed(502, `answered more than ${MAX_UPSTREAM_BODY} bytes`)
    if (Number(up.headers.get('content-length') ?? 0) > MAX_UPSTREAM_BODY) {
      await up.body?.cancel().catch(() => {})
      return tooLarge()
    }
    const { buf, truncated } = await readBounded(up, MAX_UPSTREAM_BODY)
    if (truncated) return tooLarge()
    // The answer's X-Request-Id is ours (set on every answer), not the upstream's: it is the one in parx.log.
    const { 'x-request-id': _upstreamId, ...headers } = toBuyer(up.headers)
    const token = p.chain.tokens[e.token]!
    return {
      status: up.status,
      headers,
      body: buf,
      usage: upstreamUsage(up.headers, toBaseUnits(e.price, token.decimals), token.decimals),
    }
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError'
    return failed(timedOut ? 504 : 502, timedOut ? 'did not answer in time' : 'could not be reached')
  }
}

/** The upstream sees this request's id (the buyer's own when sane), so its log and parx.log name the same request. */
function withOurRequestId(headers: Record<string, string>): Record<string, string> {
  const id = currentRequestId()
  return id ? { ...headers, 'x-request-id': id } : headers
}
