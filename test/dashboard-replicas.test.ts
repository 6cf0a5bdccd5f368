import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOGIN_RATE } from '../daemon/dashboard/login-limiter.js'
import { dashboardPaths } from '../src/sdk/dashboard/routes.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { dashboardClient } from './helpers/dashboard.js'
import { testPostgres } from './helpers/postgres.js'

// PostgreSQL-only behaviour (two replicas on one database): this file runs in the `postgres` project only.
const kRoute = `/api/base/confirm?hash=0x${'cd'.repeat(32)}`
let a: TestDaemon
let b: TestDaemon
beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  // Behind a proxy on loopback (as a balancer would be): the sign-in limiter sees X-Forwarded-For's client.
  const flags = { store: { url }, http: { trustedProxies: ['127.0.0.1'] } }
  a = await startTestDaemon({ flags })
  b = await startTestDaemon({ flags })
}, 180_000)
afterAll(async () => void (await Promise.all([a?.close(), b?.close()])))

describe('partner key changes across replicas (docs/swap-api.md "Authentication")', () => {
  it('a key deactivated on one replica is refused by another that had cached it as valid, without waiting for the 5-minute TTL', async () => {
    const c = dashboardClient(a.urls.api)
    await c.signIn(privateKeyToAccount(generatePrivateKey()), a.services.base.chainId)
    const created = (await c.call('POST', '/partner-keys', { name: 'replicated' })).body
    // B validates it (and caches the verdict for up to 5 minutes).
    expect((await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(200)
    expect((await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(200)
    expect((await c.call('POST', `/partner-keys/${created.key.id}/deactivate`)).status).toBe(200)
    // The NOTIFY reaches B's listener asynchronously: poll for the refusal (the TTL would take 5 minutes).
    await expect
      .poll(async () => (await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(401)
    expect((await a.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(401)
    // The sign-in on A is a session in the shared store: B serves it too.
    const onB = dashboardClient(b.urls.api)
    onB.cookie = c.cookie
    const list = await onB.call('GET', '/partner-keys')
    expect(list.status).toBe(200)
    expect(list.body.keys.map((k: any) => [k.id, k.state])).toEqual([[created.key.id, 'deactivated']])
  })
})

describe('the sign-in limiter across replicas', () => {
  /** A sign-in message asked of `d` for a client at `ip` (the proxy's X-Forwarded-For). */
  const ask = (d: TestDaemon, ip: string) =>
    d.raw(dashboardPaths.siweMessage, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: d.urls.api, 'x-forwarded-for': ip },
      body: JSON.stringify({
        address: privateKeyToAccount(generatePrivateKey()).address,
        chainId: d.services.base.chainId,
      }),
    })

  it('is one budget for both replicas, and addresses of one IPv6 /64 draw from one bucket', async () => {
    // A new address of the same /64 each time, on one replica then the other: N replicas or 2^64 addresses never multiply the budget.
    const statuses = []
    for (let i = 1; i <= LOGIN_RATE.burst + 1; i++)
      statuses.push((await ask(i % 2 ? a : b, `2001:db8:39:7::${i.toString(16)}`)).status)
    expect(statuses.slice(0, LOGIN_RATE.burst)).toEqual(Array(LOGIN_RATE.burst).fill(200))
    const refused = await ask(a, '2001:db8:39:7:ffff:ffff:ffff:ffff')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    expect((await ask(b, '2001:db8:39:7::1')).status).toBe(429)
    // Another /64 has a bucket of its own.
    expect((await ask(b, '2001:db8:39:8::1')).status).toBe(200)
  })
})
