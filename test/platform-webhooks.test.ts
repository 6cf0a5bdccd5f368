import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * Settlement webhooks end to end: a seller registers a webhook on its endpoint, a buyer agent
 * pays, and a receiver on 127.0.0.1 gets the signed event (verified with the recipe of docs/platform-api.md); a
 * failing receiver gets the same event again until it answers 2xx; an event queued while the
 * receiver is down survives a restart of the daemon.
 */
type Delivery = { headers: IncomingMessage['headers']; body: string }
type Receiver = { url: string; port: number; got: Delivery[]; close(): Promise<void> }

/** Answers `statuses` in turn (the last one from then on). */
async function receiver(statuses: number[] = [200], port = 0): Promise<Receiver> {
  const got: Delivery[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      got.push({ headers: req.headers, body })
      res.statusCode = statuses[Math.min(got.length - 1, statuses.length - 1)]!
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
  const p = (server.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${p}/hook`, port: p, got, close: () => new Promise((r) => server.close(() => r())) }
}

/** The verification recipe of docs/platform-api.md "Settlement webhooks". */
function signedBy(secret: string, d: Delivery): boolean {
  const id = String(d.headers['webhook-id'])
  const ts = String(d.headers['webhook-timestamp'])
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${ts}.${d.body}`)
    .digest()
  return String(d.headers['webhook-signature'])
    .split(' ')
    .some((s) => {
      const [v, sig] = s.split(',')
      const got = Buffer.from(sig ?? '', 'base64')
      return v === 'v1' && got.length === expected.length && timingSafeEqual(got, expected)
    })
}

async function until<T>(what: string, f: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

let d: TestDaemon
let seller: PlatformClient
let buyer: PlatformClient
let buyerAgent: string
let payee: string

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  seller = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
  })
  buyer = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'buyer' } })).userKey,
  })
  const b = await buyer.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  buyerAgent = b.id
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: b.wallet, token: 'PUSD', amount: '10' } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: b.wallet, token: 'USDC', amount: '10' } })
  payee = (await seller.createAgent({ body: { name: 'payee', network: 'local-base' } })).id
}, 120_000)
afterAll(async () => {
  await d?.close()
})

/** An upstream the paid URL forwards to: the daemon's own health route answers 200 without any key. */
const upstream = () => `${d.urls.api}/api/health`

async function pay(url: string, protocol?: 'mpp') {
  const paid = await buyer.pay({ params: { id: buyerAgent }, body: { url, ...(protocol ? { protocol } : {}) } })
  if (paid.dryRun || paid.status !== 200 || !paid.receipt)
    throw new Error(`payment did not go through: ${JSON.stringify(paid)}`)
  return paid.receipt
}

describe('settlement webhooks', () => {
  it('a paid call posts one signed settlement.succeeded event to the seller; the secret is shown once', async () => {
    const r = await receiver()
    try {
      const e = await seller.createEndpoint({
        body: {
          upstreamUrl: upstream(),
          price: '0.02',
          network: 'local-base',
          token: 'PUSD',
          payTo: payee,
          webhookUrl: r.url,
        },
      })
      expect(e.webhookSecret).toMatch(/^whsec_/)
      expect(e.webhookUrl).toBe(r.url)
      const shown = await seller.showEndpoint({ params: { id: e.id } })
      expect(shown).not.toHaveProperty('webhookSecret')
      const receipt = await pay(e.url)
      const [delivery] = await until('the webhook', () => (r.got.length ? r.got : undefined))
      expect(signedBy(e.webhookSecret!, delivery!)).toBe(true)
      expect(signedBy(e.webhookSecret!, { ...delivery!, body: delivery!.body.replace('0.02', '0.03') })).toBe(false)
      expect(String(delivery!.headers['webhook-timestamp'])).toMatch(/^\d{10}$/)
      const event = JSON.parse(delivery!.body)
      expect(event).toMatchObject({
        id: delivery!.headers['webhook-id'],
        type: 'settlement.succeeded',
        data: {
          endpointId: e.id,
          resource: e.url,
          protocol: 'x402',
          network: 'local-base',
          token: 'PUSD',
          amount: '0.02',
          success: true,
          transaction: receipt.transaction,
          errorReason: null,
        },
      })
      expect(event.data.payer.toLowerCase()).toBe(receipt.payer.toLowerCase())
      // Delivered on the first attempt, and recorded so: nothing is due for it any more.
      const [row] = await until('the delivered row', async () => {
        const rows = await d.services.platform.webhooks.queue.byEndpoint(e.id)
        return rows[0]?.delivered_at ? rows : undefined
      })
      expect(row).toMatchObject({ id: delivery!.headers['webhook-id'], type: 'settlement.succeeded', gave_up_at: null })
      expect(Number(row!.attempts)).toBe(1)
    } finally {
      await r.close()
    }
  }, 90_000)

  it('a failing receiver gets the same event again, with backoff, until it answers 2xx', async () => {
    const r = await receiver([500, 503, 204])
    try {
      const e = await seller.createEndpoint({
        body: { upstreamUrl: upstream(), price: '0.01', network: 'local-base', token: 'PUSD', payTo: payee },
      })
      const withHook = await seller.updateEndpoint({ params: { id: e.id }, body: { webhookUrl: r.url } })
      const receipt = await pay(e.url)
      await until('three attempts', () => r.got.length >= 3 || undefined)
      const ids = new Set(r.got.map((g) => g.headers['webhook-id']))
      expect(ids.size).toBe(1)
      expect(r.got.every((g) => signedBy(withHook.webhookSecret!, g))).toBe(true)
      expect(JSON.parse(r.got[2]!.body).data.transaction).toBe(receipt.transaction)
      const [row] = await until('the delivered row', async () => {
        const rows = await d.services.platform.webhooks.queue.byEndpoint(e.id)
        return rows[0]?.delivered_at ? rows : undefined
      })
      expect(Number(row!.attempts)).toBe(3)
      expect(r.got).toHaveLength(3)
    } finally {
      await r.close()
    }
  }, 90_000)

  it('an MPP payment of a USDC endpoint posts its event too', async () => {
    const r = await receiver()
    try {
      const e = await seller.createEndpoint({
        body: {
          upstreamUrl: upstream(),
          price: '0.03',
          network: 'local-base',
          token: 'USDC',
          payTo: payee,
          webhookUrl: r.url,
        },
      })
      const receipt = await pay(e.url, 'mpp')
      expect(receipt.protocol).toBe('mpp')
      const [delivery] = await until('the webhook', () => (r.got.length ? r.got : undefined))
      expect(signedBy(e.webhookSecret!, delivery!)).toBe(true)
      expect(JSON.parse(delivery!.body)).toMatchObject({
        type: 'settlement.succeeded',
        data: { protocol: 'mpp', token: 'USDC', amount: '0.03', transaction: receipt.transaction, success: true },
      })
    } finally {
      await r.close()
    }
  }, 90_000)

  it('an event queued while the receiver is down is delivered after a daemon restart', async () => {
    const down = await receiver()
    const port = down.port
    await down.close()
    const e = await seller.createEndpoint({
      body: {
        upstreamUrl: upstream(),
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee,
        webhookUrl: `http://127.0.0.1:${port}/hook`,
      },
    })
    const receipt = await pay(e.url)
    await until('a failed attempt', async () => {
      const [row] = await d.services.platform.webhooks.queue.byEndpoint(e.id)
      return row && Number(row.attempts) >= 1 && !row.delivered_at ? row : undefined
    })
    const dataDir = d.dataDir
    await d.close({ keepData: true })
    const r = await receiver([200], port)
    try {
      d = await startTestDaemon({ dataDir })
      const [delivery] = await until('the webhook after the restart', () => (r.got.length ? r.got : undefined), 60_000)
      expect(signedBy(e.webhookSecret!, delivery!)).toBe(true)
      expect(JSON.parse(delivery!.body).data.transaction).toBe(receipt.transaction)
    } finally {
      await r.close()
    }
  }, 120_000)
})
