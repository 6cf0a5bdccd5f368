import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'

/**
 * Issue 25 item 6: two API replicas on one PostgreSQL draw from one bucket per caller (the
 * `rate_limit_buckets` table), so N replicas allow the limit once, not N times. PostgreSQL only:
 * this file runs in the `postgres` project.
 */
const BURST = 4
let a: TestDaemon
let b: TestDaemon
beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  // A refill so slow the test never sees a token come back; loopback counts like any client.
  const flags = { store: { url }, rateLimit: { perSecond: 0.001, burst: BURST, exemptLoopback: false } }
  a = await startTestDaemon({ flags })
  b = await startTestDaemon({ flags })
}, 180_000)
afterAll(async () => void (await Promise.all([a?.close(), b?.close()])))

describe('rate limits shared by replicas through the store', () => {
  it('one client spread over two replicas gets the burst once, not once per replica', async () => {
    const statuses: number[] = []
    for (let i = 0; i < BURST + 2; i++) statuses.push((await (i % 2 ? b : a).raw('/api/health')).status)
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
    const refused = await b.raw('/api/health')
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    const rows = await a.services.store.db.selectFrom('rate_limit_buckets').selectAll().execute()
    expect(rows.map((r) => r.key)).toContain('127.0.0.1')
  })
})
