import express from 'express'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen, parxBuyer } from './helpers/x402-buyers.js'

/**
 * Issue 25 item 5 (third-party content stays third-party) and the answer side of item 3 (bounded
 * bodies), on a local daemon: /paid/:id crosses headers by allow-list in both directions and marks
 * every answer `CSP: sandbox` + `nosniff`; an upstream answering without end is cut (502, not
 * charged) and a webhook receiver streaming without end still gets its event delivered.
 */
let d: TestDaemon
let user: PlatformClient
let upstream: { url: string; close(): Promise<void> }
let seen: Record<string, string | string[] | undefined> = {}
const MB = 1024 * 1024

/** Writes `total` bytes in 64 KiB chunks (chunked: no Content-Length), or forever when total is Infinity. */
function stream(res: express.Response, total: number) {
  const chunk = Buffer.alloc(64 * 1024, 'x')
  let sent = 0
  const more = () => {
    while (sent < total) {
      sent += chunk.length
      if (!res.write(chunk)) return void res.once('drain', more)
    }
    res.end()
  }
  res.on('close', () => (sent = total))
  more()
}

beforeAll(async () => {
  d = await startTestDaemon()
  const app = express()
  app.get('/echo', (req, res) => {
    seen = req.headers
    res.setHeader('Set-Cookie', 'parx_dashboard=stolen; Path=/')
    res.setHeader('Location', '/api/operator/users')
    res.setHeader('WWW-Authenticate', 'Payment id="x", realm="elsewhere", method="evm", intent="charge"')
    res.setHeader('Cache-Control', 'public, max-age=86400')
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Connection', 'x-hop')
    res.setHeader('x-hop', 'connection-scoped')
    res.setHeader('ETag', '"v1"')
    res.setHeader('Content-Type', 'text/html')
    res.send('<script>document.cookie</script>')
  })
  app.get('/endless', (_req, res) => stream(res, Infinity))
  app.get('/declared', (_req, res) => {
    res.setHeader('Content-Length', String(64 * MB))
    res.flushHeaders()
    res.destroy()
  })
  app.post('/hook', (_req, res) => {
    res.status(200)
    stream(res, Infinity)
  })
  upstream = await listen(app)
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name: 'seller' } })
  user = createPlatformClient({ url: d.urls.platform, userKey })
}, 120_000)
afterAll(async () => {
  await upstream?.close()
  await d?.close()
})

async function endpoint(path: string, webhookUrl?: string) {
  return user.createEndpoint({
    body: {
      upstreamUrl: `${upstream.url}${path}`,
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: randomAddress(),
      ...(webhookUrl ? { webhookUrl } : {}),
    },
  })
}
async function funded() {
  const account = privateKeyToAccount(generatePrivateKey())
  await d.call('/api/local/faucet', {
    body: { network: 'local-base', to: account.address, token: 'PUSD', amount: '1' },
  })
  return parxBuyer(d, { evm: account })
}

describe('/paid/:id header policy', () => {
  it('buyer -> upstream: no Cookie, platform keys, forwarding or hop-by-hop headers; content negotiation passes', async () => {
    const e = await endpoint('/echo')
    const pay = await funded()
    const res = await pay(e.url, {
      headers: {
        cookie: 'parx_dashboard=victim-session',
        'x-user-key': `parx-u-${'1'.repeat(64)}`,
        'x-agent-key': `parx-a-${'2'.repeat(64)}`,
        'x-api-key': 'parx-partner',
        'x-csrf-token': 'csrf',
        'x-forwarded-for': '127.0.0.9',
        'accept-language': 'fr',
        accept: 'text/html',
        'x-request-id': 'req-1',
        authorization: 'Bearer the-upstreams-own-token',
      },
    })
    expect(res.status).toBe(200)
    await res.text()
    for (const h of [
      'cookie',
      'x-user-key',
      'x-agent-key',
      'x-api-key',
      'x-csrf-token',
      'x-forwarded-for',
      'payment-signature',
      'x-payment',
    ])
      expect(seen[h], h).toBeUndefined()
    // (Headers named in Connection: fetch will not send one; daemon/egress/headers.test.ts covers them.)
    expect(seen).toMatchObject({
      accept: 'text/html',
      'accept-language': 'fr',
      'x-request-id': 'req-1',
      authorization: 'Bearer the-upstreams-own-token',
    })
    // The buyer's id is the request's id here too, and the answer carries it (docs/operations.md "Request ids").
    expect(res.headers.get('x-request-id')).toBe('req-1')
  }, 60_000)

  it('upstream -> buyer: no Set-Cookie, Location, WWW-Authenticate, caching or CORS; CSP sandbox and nosniff on paid, 402 and error answers', async () => {
    const e = await endpoint('/echo')
    const pay = await funded()
    const res = await pay(e.url)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('<script>document.cookie</script>')
    expect(res.headers.get('set-cookie')).toBeNull()
    expect(res.headers.get('location')).toBeNull()
    expect(res.headers.get('www-authenticate')).toBeNull()
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('x-hop')).toBeNull()
    expect(res.headers.get('cache-control')).toBe('private')
    expect(res.headers.get('content-security-policy')).toBe('sandbox')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('etag')).toBe('"v1"')
    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    expect([unpaid.headers.get('content-security-policy'), unpaid.headers.get('x-content-type-options')]).toEqual([
      'sandbox',
      'nosniff',
    ])
  }, 60_000)
})

describe('bounded answers from third parties', () => {
  it('an upstream answering without end, or declaring more than the cap, gets the buyer 502 SELLER_FAILED, not charged', async () => {
    const pay = await funded()
    for (const path of ['/endless', '/declared']) {
      const e = await endpoint(path)
      const rss = process.memoryUsage().rss
      const res = await pay(e.url)
      expect(res.status, path).toBe(502)
      expect(await res.json()).toMatchObject({ code: 'SELLER_FAILED' })
      expect(res.headers.get('payment-response')).toBeNull()
      expect(process.memoryUsage().rss - rss, path).toBeLessThan(100 * MB)
    }
  }, 120_000)

  it('a webhook receiver answering 200 with an endless body: the event is delivered at once, its body is not held', async () => {
    const e = await endpoint('/echo', `${upstream.url}/hook`)
    const pay = await funded()
    expect((await pay(e.url)).status).toBe(200)
    const deadline = Date.now() + 8_000
    let rows = await d.services.platform.webhooks.queue.byEndpoint(e.id)
    while (!rows[0]?.delivered_at && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
      rows = await d.services.platform.webhooks.queue.byEndpoint(e.id)
    }
    // Within the attempt's 10 s timeout: reading the whole answer (as before) never finished, so it was never delivered.
    expect(rows[0]?.delivered_at, JSON.stringify(rows[0])).toBeTruthy()
  }, 60_000)
})
