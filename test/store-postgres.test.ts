import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type PostgresServer, startPostgres } from './helpers/postgres.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle } from './helpers/x402.js'

// PostgreSQL-only behaviour: this file runs in the `postgres` vitest project only.
let pg: PostgresServer
const daemons: TestDaemon[] = []
beforeAll(async () => {
  // Its own server, not the run's: a test here stops and restarts it.
  pg = await startPostgres()
})
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()))
  await pg.destroy()
})

async function daemonOn(url: string, dataDir?: string): Promise<TestDaemon> {
  const d = await startTestDaemon({ dataDir, flags: { store: { url } } })
  daemons.push(d)
  return d
}

describe('PostgreSQL store', () => {
  it('down at start: `parx serve` prints one line naming PARX_STORE_URL and exits 1', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parx-pgdown-'))
    try {
      const child = spawn(
        process.execPath,
        ['bin/parx.js', 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, PARX_STORE_URL: 'postgres://parx:secret@127.0.0.1:1/parx', NO_COLOR: '1' },
        },
      )
      let stderr = ''
      child.stderr!.on('data', (d) => (stderr += d))
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
      expect(code).toBe(1)
      const lines = stderr
        .trim()
        .split('\n')
        .filter((l) => !/^\s*$/.test(l) && !/^npm warn/.test(l))
      expect(lines.join('\n')).toMatch(
        /cannot reach the PostgreSQL store at postgres:\/\/parx:\*\*\*@127\.0\.0\.1:1\/parx \(set by PARX_STORE_URL or store\.url\)/,
      )
      expect(stderr).not.toContain('secret')
      expect(stderr).not.toMatch(/\n\s+at /) // no stack trace
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('restarted under load: requests answer 503 (never 500) while it is down and recover after', async () => {
    const d = await daemonOn(await pg.createDatabase())
    const before = await d.partnerKey()
    const fresh = `parx-${'0'.repeat(31)}1`
    await pg.stop()
    try {
      const list = await d.raw('/api/operator/keys', { headers: d.operatorHeaders() })
      expect(list.status).toBe(503)
      expect(list.body).toMatchObject({ code: 'STORE_UNAVAILABLE' })
      // A key never seen has no cached verdict: the key store cannot be read.
      const k = await d.raw(`/api/base/confirm?hash=0x${'11'.repeat(32)}`, { headers: { 'x-api-key': fresh } })
      expect(k.status).toBe(503)
      expect(k.body).toMatchObject({ code: 'KEY_STORE_UNAVAILABLE' })
      const ready = await d.raw('/api/readiness')
      expect(ready.status).toBe(503)
      expect(ready.body.checks.store.ok).toBe(false)
    } finally {
      await pg.start()
    }
    const list = await d.raw('/api/operator/keys', { headers: d.operatorHeaders() })
    expect(list.status).toBe(200)
    expect(list.body.keys).toHaveLength(1)
    const r = await d.raw(`/api/base/confirm?hash=0x${'11'.repeat(32)}`, { headers: { 'x-api-key': before } })
    expect(r.status).toBe(200)
    expect((await d.raw('/api/readiness')).body.checks.store.ok).toBe(true)
  })

  it('two daemons on one database: a key made on one validates on the other, and one authorization settles once', async () => {
    const url = await pg.createDatabase()
    const a = await daemonOn(url)
    // Same service keys, so the second daemon's embedded chain has the same token addresses and
    // the same authorization has the same replay key on both: only the shared ledger can tell.
    const dataDirB = mkdtempSync(join(tmpdir(), 'parx-test-'))
    copyFileSync(join(a.dataDir, 'keys.json'), join(dataDirB, 'keys.json'))
    const b = await daemonOn(url, dataDirB)
    expect(localBase(b).token('USDC').address).toBe(localBase(a).token('USDC').address)

    const key = await a.partnerKey()
    expect((await b.raw(`/api/base/confirm?hash=0x${'11'.repeat(32)}`, { headers: { 'x-api-key': key } })).status).toBe(
      200,
    )

    const payer = await evmPayer(a, ['USDC'], '10')
    await b.call('/api/local/faucet', { body: { to: payer.address, token: 'USDC', amount: '10' } })
    const seller = randomAddress()
    const r = requirements(a, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
    const body = await eip3009Body(a, payer, r)
    const [ra, rb] = await Promise.all([settle(a, body), settle(b, body)])
    const outcomes = [ra.body, rb.body]
    expect(outcomes.filter((o) => o.success)).toHaveLength(1)
    // Each test daemon runs its own embedded chain: the loser's chain does not have the winner's
    // transaction, so it answers settlement_pending (never duplicate for a transaction its chain
    // lacks) when the first had finished, duplicate_settlement while it was still settling.
    // Either way it names the winner's transaction.
    const lost = outcomes.filter((o) => !o.success)
    expect(lost).toHaveLength(1)
    expect(['duplicate_settlement', 'settlement_pending']).toContain(lost[0]!.errorReason)
    expect(lost[0]!.transaction).toBe(outcomes.find((o) => o.success)!.transaction)
    const paid = (await localBase(a).balance('USDC', seller)) + (await localBase(b).balance('USDC', seller))
    expect(paid).toBe(BigInt(r.amount))
  })

  it('roles: api replicas serve the routes and never lead; a worker serves only its health and leads', async () => {
    const url = await pg.createDatabase()
    const worker = await startTestDaemon({ flags: { store: { url }, role: 'worker' } })
    daemons.push(worker)
    const api = await startTestDaemon({ flags: { store: { url }, role: 'api' } })
    daemons.push(api)
    expect(api.services.worker).toBeUndefined()
    for (let i = 0; i < 200 && !worker.services.worker!.leadership.isLeader(); i++)
      await new Promise((r) => setTimeout(r, 50))
    expect(worker.services.worker!.leadership.isLeader()).toBe(true)
    expect((await worker.raw('/api/health')).status).toBe(200)
    expect((await worker.raw('/api/base/info')).status).toBe(404)
    expect((await api.raw('/api/base/info')).status).toBe(200)
  })

  it('--role api or worker without PostgreSQL is refused, naming the setting', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parx-role-'))
    const err = await startTestDaemon({ dataDir, flags: { store: {}, role: 'api' } }).catch((e: Error) => e)
    rmSync(dataDir, { recursive: true, force: true })
    expect(err).toMatchObject({ code: 'BAD_REQUEST' })
    expect((err as Error).message).toMatch(/--role api needs a PostgreSQL store .*PARX_STORE_URL/)
  })
})
