import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import type { Readiness } from '../src/sdk/discovery/readiness.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'

/**
 * Issue 28 item 4: which process leads the worker duties is visible on every process. One api
 * replica and two workers on one PostgreSQL and the external chains of `parx chains --as testnet`;
 * readiness and `parx status` on each say its role and whether it leads; when the leader stops, the
 * standby says it leads. PostgreSQL only.
 */
let chains: StandaloneChains
let api: TestDaemon
const workers: TestDaemon[] = []
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))

beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  const start = (role: 'api' | 'worker') => startTestDaemon({ env: chains.env, flags: { store: { url }, role } })
  // The api replica first: it migrates the store.
  api = await start('api')
  workers.push(...(await Promise.all([start('worker'), start('worker')])))
}, 180_000)
afterAll(async () => {
  await Promise.all([api?.close(), ...workers.map((w) => w.close())])
  await chains?.stop()
  rmSync(chainsDir, { recursive: true, force: true })
})

const readiness = async (d: TestDaemon) => (await d.raw('/api/readiness')).body as Readiness
const leaders = async (ds: TestDaemon[]) =>
  (await Promise.all(ds.map(readiness))).map((r, i) => (r.leader ? ds[i] : undefined)).filter((d) => d !== undefined)

async function until<T>(what: string, probe: () => Promise<T | undefined>, attempts = 150, everyMs = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const v = await probe()
    if (v) return v
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`never happened: ${what}`)
}

describe('role and leadership, on every process', () => {
  it('readiness on each says its role; exactly one worker leads; the api replica does not campaign', async () => {
    const ready = await readiness(api)
    expect(ready).toMatchObject({
      ready: true,
      role: 'api',
      leader: null,
      leadership: expect.stringMatching(/does not campaign/),
    })
    await until('a worker leads', async () => (await leaders(workers)).length > 0)
    // The standby tries the lock every second: give it a few tries, still one leader.
    await new Promise((r) => setTimeout(r, 2_500))
    const answers = await Promise.all(workers.map(readiness))
    for (const r of answers) expect(r).toMatchObject({ ready: true, role: 'worker', leader: expect.any(Boolean) })
    expect(answers.filter((r) => r.leader)).toHaveLength(1)
    expect(answers.find((r) => r.leader)!.leadership).toMatch(/holds the PostgreSQL advisory lock/)
    expect(answers.find((r) => !r.leader)!.leadership).toMatch(/standing by/)
    // The process' own word agrees with what readiness says.
    for (const [i, w] of workers.entries()) expect(w.services.worker!.leadership.isLeader()).toBe(answers[i]!.leader)
  })

  it('parx status prints role and leader, in JSON and text, for a worker and an api replica', async () => {
    const [leader] = await leaders(workers)
    const json = await runParx(leader!.urls.api, ['-o', 'json', 'status'])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.out)).toMatchObject({ ready: true, role: 'worker', leader: true })
    const text = await runParx(leader!.urls.api, ['--no-color', 'status'])
    expect(text.out).toMatch(/^role\s+worker$/m)
    expect(text.out).toMatch(/^leader\s+yes {2}leads the worker duties/m)
    const onApi = await runParx(api.urls.api, ['-o', 'json', 'status'])
    expect(JSON.parse(onApi.out)).toMatchObject({ role: 'api', leader: null })
    expect((await runParx(api.urls.api, ['--no-color', 'status'])).out).toMatch(/^leader\s+n\/a {2}does not campaign/m)
  })

  it('when the leader stops, the standby leads (and says so)', async () => {
    const [leader] = await leaders(workers)
    const standby = workers.find((w) => w !== leader)!
    expect((await readiness(standby)).leader).toBe(false)
    const t = Date.now()
    await leader!.close()
    workers.splice(workers.indexOf(leader!), 1)
    // Takeover: the standby's next try (every 1 s), then its grace before the duties (1 s).
    const r = await until('the standby leads', async () => {
      const r = await readiness(standby)
      return r.leader ? r : undefined
    })
    expect(r).toMatchObject({ role: 'worker', leader: true })
    console.log(`[hosted-leadership] the standby led ${Date.now() - t} ms after the leader began to stop`)
  })
})
