import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { type Daemon, startDaemon } from '../daemon/main.js'
import { loadConfig } from '../src/config/load.js'

const fixture = join(import.meta.dirname, 'fixtures')
const expected = JSON.parse(readFileSync(join(fixture, 'datadir-v0.1.expected.json'), 'utf8')) as {
  key: string
  keyHash: string
  settlementTx: string
  solSwapSignature: string
  deployments: { network: string; name: string; address: string }[]
}

let d: Daemon | undefined
afterAll(async () => d?.stop())

describe('a data dir made by parx 0.1 (synchronous SQLite store)', () => {
  it('opens, migrates forward without loss and serves: the partner key validates, deployments are reused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parx-upgrade-'))
    cpSync(join(fixture, 'datadir-v0.1'), dataDir, { recursive: true })
    chmodSync(join(dataDir, 'keys.json'), 0o600)
    // This fixture is SQLite by nature, whatever store the run tests.
    d = await startDaemon(loadConfig({ env: {}, file: {}, flags: { port: 0, dataDir, logLevel: 'warn' } }))
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${d!.urls.api}${path}`, { headers })
      return { status: res.status, body: (await res.json()) as any }
    }
    const { db } = d.services.store

    const applied = (
      await db
        .selectFrom('parx_migrations' as never)
        .select('name' as never)
        .execute()
    ).map((r) => (r as { name: string }).name)
    expect(applied).toEqual(
      expect.arrayContaining(['001_partner_keys', '002_deployments', '200_x402_settlements', '301_sol_swaps']),
    )

    // Every row is still there.
    // ...and what this release adds beside them: the cross-chain contracts and the Solana settlement programs.
    const deployments = await db.selectFrom('deployments').selectAll().orderBy('network').orderBy('name').execute()
    expect(deployments).toEqual(expect.arrayContaining(expected.deployments))
    const added = deployments
      .filter((r) => !expected.deployments.some((x) => x.network === r.network && x.name === r.name))
      .map((r) => `${r.network}:${r.name}`)
    expect(added.sort()).toEqual([
      'local-base:escrow',
      'local-base:outputSettler',
      'local-base:verifier',
      'local-solana:dest_settler',
      'local-solana:origin_settler',
    ])
    const keys = await db.selectFrom('partner_keys').selectAll().execute()
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ key_hash: expected.keyHash, state: 'active' })
    const settlements = await db.selectFrom('x402_settlements').selectAll().execute()
    expect(settlements).toEqual([
      expect.objectContaining({
        id: 1,
        state: 'settled',
        method: 'eip3009',
        amount: '1000000',
        tx: expected.settlementTx,
      }),
    ])
    const swaps = await db.selectFrom('sol_swaps').selectAll().execute()
    expect(swaps).toEqual([
      expect.objectContaining({
        id: 1,
        signature: expected.solSwapSignature,
        in_amount: '1000000',
        out_amount: '1000000000000000000',
      }),
    ])

    // It serves: the old key opens a K route, and the chains run on the recorded deployment.
    const r = await get(`/api/base/confirm?hash=0x${'11'.repeat(32)}`, { 'x-api-key': expected.key })
    expect(r.status).toBe(200)
    const info = (await get('/api/base/info')).body
    expect(info.router).toBe(
      expected.deployments.find((x) => x.network === 'local-base' && x.name === 'router')!.address,
    )
    // The upgrade added cross-chain without a redeploy of the rest: the router above is the old one.
    const config = (await get('/api/config')).body
    expect([config.escrow, config.verifier]).toEqual([
      deployments.find((r) => r.name === 'escrow')!.address,
      deployments.find((r) => r.name === 'verifier')!.address,
    ])
    expect(await d.services.base.client.getCode({ address: config.escrow })).toMatch(/^0x[0-9a-f]{10,}/)
    expect((await get('/api/sol/info')).body.mints.USDC.mint).toBe(
      expected.deployments.find((x) => x.network === 'local-solana' && x.name === 'USDC')!.address,
    )
    await d.stop()
    d = undefined

    // The legacy record is kept, and the embedded Solana cluster still owns its tables in the same file.
    const file = new Sqlite(join(dataDir, 'parx.db'), { readonly: true })
    expect(file.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(5)
    expect(file.prepare('SELECT COUNT(*) FROM solana_accounts').pluck().get()).toBeGreaterThan(0)
    file.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
})
