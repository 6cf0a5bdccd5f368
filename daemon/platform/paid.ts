import type { IncomingMessage, ServerResponse } from 'node:http'
import { toBaseUnits } from '../../src/sdk/units.js'
import { paymentGate } from '../../src/sdk/x402/seller/middleware.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'

/** How long the upstream may take; past it the buyer gets 504 and is not charged. Shorter than pay's own wait (30 s), so a platform buyer hears the 504. */
const UPSTREAM_TIMEOUT_MS = 20_000
/** Request headers not forwarded upstream: the payment and hop-by-hop ones. */
const DROP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'payment-signature', 'x-payment', 'keep-alive', 'upgrade'])

/**
 * Serves one seller endpoint at /paid/<id> with our seller middleware (src/sdk/x402/seller): an
 * unpaid request gets the x402 v2 header and v1 body at the endpoint's price; a paid one is
 * verified by our facilitator, forwarded to the upstream, and settled only when the upstream
 * answered below 400. An upstream that fails or hangs is never charged.
 */
export async function servePaid(p: {
  endpoint: EndpointRow; chain: EvmChain; facilitatorUrl: string; req: IncomingMessage; res: ServerResponse; body: ArrayBuffer; timeoutMs?: number
}): Promise<void> {
  const e = p.endpoint
  const token = p.chain.tokens[e.token]!
  const gate = paymentGate({
    facilitator: { url: p.facilitatorUrl },
    routes: { [`/paid/${e.id}`]: { prices: [{ network: e.network, asset: e.token, amount: toBaseUnits(e.price, token.decimals).toString(), payTo: e.pay_to }], description: e.name ?? '' } },
  })
  let failure: unknown
  await gate(p.req, p.res, async (err?: unknown) => {
    if (err) {
      failure = err
      return
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(p.req.headers)) if (!DROP.has(k) && typeof v === 'string') headers[k] = v
    const query = (p.req.url ?? '').includes('?') ? (p.req.url ?? '').slice((p.req.url ?? '').indexOf('?')) : ''
    try {
      const up = await fetch(e.upstream_url + query, {
        method: p.req.method, headers, body: ['GET', 'HEAD'].includes(p.req.method ?? 'GET') ? undefined : Buffer.from(p.body),
        redirect: 'manual', signal: AbortSignal.timeout(p.timeoutMs ?? UPSTREAM_TIMEOUT_MS),
      })
      const buf = Buffer.from(await up.arrayBuffer())
      p.res.statusCode = up.status
      up.headers.forEach((v, k) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)) p.res.setHeader(k, v)
      })
      p.res.end(buf)
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError'
      p.res.statusCode = timedOut ? 504 : 502
      p.res.setHeader('content-type', 'application/json')
      p.res.end(JSON.stringify({ error: `the upstream ${timedOut ? 'did not answer in time' : 'could not be reached'}; you were not charged`, code: 'SELLER_FAILED' }))
    }
  })
  if (failure) throw failure
}
