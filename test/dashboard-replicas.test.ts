import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dashboardClient } from './helpers/dashboard.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'

// PostgreSQL-only behaviour (two replicas on one database): this file runs in the `postgres` project only.
const kRoute = `/api/base/confirm?hash=0x${'cd'.repeat(32)}`
let a: TestDaemon
let b: TestDaemon
beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  a = await startTestDaemon({ flags: { store: { url } } })
  b = await startTestDaemon({ flags: { store: { url } } })
}, 180_000)
afterAll(async () => void (await Promise.all([a?.close(), b?.close()])))

describe('partner key changes across replicas (SPEC §3.2, §5.5)', () => {
  it('a key deactivated on one replica is refused by another that had cached it as valid, without waiting for the 5-minute TTL', async () => {
    const c = dashboardClient(a.urls.api)
    await c.signIn(privateKeyToAccount(generatePrivateKey()), a.services.base.chainId)
    const created = (await c.call('POST', '/partner-keys', { name: 'replicated' })).body
    // B validates it (and caches the verdict for up to 5 minutes).
    expect((await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(200)
    expect((await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(200)
    expect((await c.call('POST', `/partner-keys/${created.key.id}/deactivate`)).status).toBe(200)
    // The NOTIFY reaches B's listener asynchronously: poll for the refusal (the TTL would take 5 minutes).
    await expect.poll(async () => (await b.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status, { timeout: 10_000, interval: 100 }).toBe(401)
    expect((await a.raw(kRoute, { headers: { 'x-api-key': created.secret } })).status).toBe(401)
    // The sign-in on A is a session in the shared store: B serves it too.
    const onB = dashboardClient(b.urls.api)
    onB.cookie = c.cookie
    const list = await onB.call('GET', '/partner-keys')
    expect(list.status).toBe(200)
    expect(list.body.keys.map((k: any) => [k.id, k.state])).toEqual([[created.key.id, 'deactivated']])
  })
})
