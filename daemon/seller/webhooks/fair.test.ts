import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import { platformStore } from '../../platform/store.js'
import type { Store } from '../../store/store.js'
import { endpointStore } from '../endpoints.js'
import { webhookDelivery } from './deliver.js'
import { webhookQueue } from './queue.js'
import { webhookSecrets } from './secret.js'

/**
 * Issue 25 item 6: one tenant's hanging webhook receivers must not delay another tenant's events.
 * Tenant A's receiver on 127.0.0.1 takes every request and never answers; tenant B's answers at
 * once. With A's 30 events queued first, B's one event is delivered within a few seconds, while
 * A's are still hanging (each attempt waits out its 10 s timeout).
 */
let store: Store
const servers: Server[] = []
const hung: ServerResponse[] = []
let closing = false

async function receiver(onRequest: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => onRequest(res))
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
}

beforeAll(async () => {
  store = await openTestStore()
})
afterAll(async () => {
  for (const res of hung) res.destroy()
  for (const s of servers) s.closeAllConnections()
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  await store?.close()
})

describe('webhook deliveries are shared out fairly between tenants', () => {
  it("a tenant's hanging receiver does not delay another tenant's event", async () => {
    const users = platformStore(store, undefined)
    const endpoints = endpointStore(store)
    const secrets = webhookSecrets(undefined)
    const queue = webhookQueue(store)
    let bGot = 0
    const hangingUrl = await receiver((res) => (closing ? res.destroy() : void hung.push(res)))
    const quickUrl = await receiver((res) => {
      bGot++
      res.end()
    })
    const endpoint = async (userId: string, url: string) => {
      const id = crypto.randomUUID()
      return endpoints.create({
        id,
        user_id: userId,
        name: null,
        upstream_url: 'http://127.0.0.1:9/',
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        pay_to: '0x0000000000000000000000000000000000000001',
        pay_to_agent_id: null,
        discoverable: 0,
        description: null,
        webhook_url: url,
        webhook_secret: secrets.make(id).stored,
      })
    }
    const a = await endpoint((await users.createUser({ name: 'a' })).user.id, hangingUrl)
    const b = await endpoint((await users.createUser({ name: 'b' })).user.id, quickUrl)
    const t0 = Date.now() - 1_000
    for (let i = 0; i < 30; i++)
      await queue.enqueue(
        { endpointId: a.id, key: `a:${i}`, type: 'settlement.succeeded', body: (id) => JSON.stringify({ id, i }) },
        t0,
      )
    await queue.enqueue(
      { endpointId: b.id, key: 'b:0', type: 'settlement.succeeded', body: (id) => JSON.stringify({ id }) },
      t0 + 500,
    )

    const delivery = webhookDelivery({
      queue,
      secrets,
      endpoint: (id) => endpoints.served(id),
      log: pino({ level: 'silent' }),
    })
    const started = Date.now()
    delivery.start()
    try {
      while (bGot === 0 && Date.now() - started < 9_000) await new Promise((r) => setTimeout(r, 50))
      const waited = Date.now() - started
      expect(bGot, `tenant B's event after ${waited} ms`).toBe(1)
      expect(waited).toBeLessThan(3_000)
      // Recorded once the receiver's answer is in (a moment after it got the request).
      await expect.poll(async () => (await queue.byEndpoint(b.id))[0]!.delivered_at, { timeout: 5_000 }).not.toBeNull()
      // A is hanging meanwhile, and holds no more than its own share of attempts.
      expect(hung.length).toBeGreaterThan(0)
      expect(hung.length).toBeLessThanOrEqual(4)
      expect((await queue.byEndpoint(a.id)).every((r) => r.delivered_at === null)).toBe(true)
    } finally {
      closing = true
      for (const res of hung) res.destroy()
      await delivery.stop()
    }
  }, 60_000)
})
