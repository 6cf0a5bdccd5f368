import type { IncomingMessage, ServerResponse } from 'node:http'
import { paymentGate } from '../../src/sdk/x402/seller/middleware.js'
import type { SellerHooks } from '../../src/sdk/x402/seller/hooks.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'
import { mppGate, type MppGate } from './paid-mpp.js'
import { endpointPrices } from './prices.js'

/** How long the upstream may take; past it the buyer gets 504 and is not charged. Shorter than pay's own wait (30 s), so a platform buyer hears the 504. */
const UPSTREAM_TIMEOUT_MS = 20_000
/** Request headers not forwarded upstream: the payment and hop-by-hop ones. */
const DROP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'payment-signature', 'x-payment', 'keep-alive', 'upgrade'])
/** Upstream answer headers not passed back: the framing ones, which Node sets itself. */
const DROP_BACK = new Set(['content-length', 'transfer-encoding', 'connection', 'content-encoding'])

type Paid = {
  endpoint: EndpointRow; chain: EvmChain; facilitatorUrl: string; mppSecret: string; req: IncomingMessage; res: ServerResponse; body: ArrayBuffer; timeoutMs?: number
  /** Told every settle outcome, x402 or MPP, before the buyer's answer goes out (the settlement webhook). */
  onSettled?: (o: PaidSettlement) => Promise<void>
  onHookError?: (err: unknown) => void
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
  const mpp = mppGate({ endpoint: p.endpoint, chain: p.chain, facilitatorUrl: p.facilitatorUrl, secret: p.mppSecret })
  const auth = p.req.headers.authorization
  if (mpp && auth && /^Payment\s/i.test(auth)) return serveMpp(p, mpp, auth)
  if (mpp) await challengeOn402(p, mpp)
  const e = p.endpoint
  const gate = paymentGate({
    facilitator: { url: p.facilitatorUrl },
    routes: { [`/paid/${e.id}`]: { prices: endpointPrices(e, p.chain), description: e.description ?? e.name ?? '', discoverable: Number(e.discoverable) === 1 } },
    hooks: p.onSettled ? [settledHook(p.onSettled)] : [],
    onHookError: p.onHookError,
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
    p.res.end(up.body)
  })
  if (failure) throw failure
}

const settledHook = (onSettled: NonNullable<Paid['onSettled']>): SellerHooks => ({
  onAfterSettle: ({ paymentPayload, result }) => onSettled({ payment: paymentPayload, protocol: 'x402', result }),
})

/** Any 402 this request gets (unpaid, or an x402 payment refused) also names the MPP challenge. */
async function challengeOn402(p: Paid, mpp: MppGate): Promise<void> {
  const challenge = await mpp.challenge(p.req)
  if (!challenge) return
  const res = p.res
  const end = res.end
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (res.statusCode === 402 && !res.headersSent && !res.hasHeader('www-authenticate')) res.setHeader('WWW-Authenticate', challenge)
    return (end as (...a: unknown[]) => ServerResponse).apply(res, args)
  } as typeof res.end
}

/** An MPP credential: validate (no money moves), forward, settle only after a successful upstream. */
async function serveMpp(p: Paid, mpp: MppGate, credential: string): Promise<void> {
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
  p.res.end(up.body)
}

/** 402 with a fresh challenge and an RFC 9457 problem document, as MPP answers a refused credential. */
async function refuse(p: Paid, mpp: MppGate, detail: string): Promise<void> {
  const challenge = await mpp.challenge(p.req)
  p.res.statusCode = 402
  if (challenge) p.res.setHeader('WWW-Authenticate', challenge)
  p.res.setHeader('Cache-Control', 'no-store')
  p.res.setHeader('Content-Type', 'application/problem+json')
  p.res.end(JSON.stringify({ type: 'https://paymentauth.org/problems/verification-failed', title: 'Payment verification failed', status: 402, detail }))
}

/** The upstream's answer, or 502 / 504 (`SELLER_FAILED`) when it fails or hangs. */
async function forward(p: Paid): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const e = p.endpoint
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(p.req.headers)) if (!DROP.has(k) && typeof v === 'string') headers[k] = v
  // An MPP credential is for us, not the upstream; any other Authorization is the buyer's business with it.
  if (/^Payment\s/i.test(headers.authorization ?? '')) delete headers.authorization
  const url = p.req.url ?? ''
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : ''
  try {
    const up = await fetch(e.upstream_url + query, {
      method: p.req.method, headers, body: ['GET', 'HEAD'].includes(p.req.method ?? 'GET') ? undefined : Buffer.from(p.body),
      redirect: 'manual', signal: AbortSignal.timeout(p.timeoutMs ?? UPSTREAM_TIMEOUT_MS),
    })
    const body = Buffer.from(await up.arrayBuffer())
    const back: Record<string, string> = {}
    up.headers.forEach((v, k) => {
      if (!DROP_BACK.has(k)) back[k] = v
    })
    return { status: up.status, headers: back, body }
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError'
    const body = JSON.stringify({ error: `the upstream ${timedOut ? 'did not answer in time' : 'could not be reached'}; you were not charged`, code: 'SELLER_FAILED' })
    return { status: timedOut ? 504 : 502, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) }
  }
}
