import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Kysely, sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { testDialect, testStoreUrl } from '../../test/helpers/store.js'
import { MIGRATION_TABLE, migrate } from './migrate.js'
import { migrations } from './migrations/index.js'
import type { StoreMigration } from './migrations/migration.js'
import { openStore, type Store } from './store.js'
import { isStoreUnavailable } from './unavailable.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-store-'))
let n = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A fresh location for a store of the dialect under test: a SQLite file or a PostgreSQL database. */
async function location() {
  return { file: join(dir, `s${++n}.db`), url: await testStoreUrl() }
}

async function withStore<T>(loc: { file: string; url?: string }, fn: (s: Store) => Promise<T>): Promise<T> {
  const s = await openStore(loc)
  try {
    return await fn(s)
  } finally {
    await s.close()
  }
}

const applied = (db: Kysely<any>) =>
  db
    .selectFrom(MIGRATION_TABLE)
    .select('name')
    .orderBy('name')
    .execute()
    .then((r) => r.map((x) => x.name as string))
const table = (name: string): StoreMigration => ({
  up: (db) =>
    db.schema
      .createTable(name)
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute(),
})

describe(`store (${testDialect()})`, () => {
  it('applies every migration once at open and records it', async () => {
    const loc = await location()
    await withStore(loc, async (s) => {
      expect(s.dialect).toBe(testDialect())
      expect(await applied(s.db)).toEqual(Object.keys(migrations).sort())
      await s.ping()
    })
    // A second open finds nothing to do and keeps the rows.
    await withStore(loc, async (s) => {
      await s.db.insertInto('deployments').values({ network: 'n', name: 'x', address: '0x1' }).execute()
      expect(await migrate(s.db, s.dialect)).toEqual([])
    })
    await withStore(loc, async (s) =>
      expect(await s.db.selectFrom('deployments').selectAll().execute()).toHaveLength(1),
    )
  })

  it('reads big integers (epoch ms) and autoincrement ids as numbers on both dialects', async () => {
    await withStore(await location(), async (s) => {
      const t = Date.now()
      const row = await s.db
        .insertInto('x402_settlements')
        .values({
          auth_key: 'k',
          network: 'n',
          method: 'm',
          pay_to: 'p',
          asset: 'a',
          amount: '1',
          state: 'pending',
          created_at: t,
          updated_at: t,
        })
        .returning(['id', 'created_at'])
        .executeTakeFirstOrThrow()
      expect(row).toEqual({ id: 1, created_at: t })
    })
  })

  it('a migration interrupted half way leaves nothing applied, and the next start completes it', async () => {
    const loc = await location()
    await withStore(loc, async (s) => {
      let fail = true
      const set = {
        ...migrations,
        '900_a': table('t900_a'),
        '901_b': {
          up: async (db: Kysely<any>, d: 'sqlite' | 'postgres') => {
            await table('t901_b').up(db, d)
            if (fail) throw new Error('killed half way')
          },
        },
      }
      await expect(migrate(s.db, s.dialect, set)).rejects.toThrow('killed half way')
      expect(await applied(s.db)).not.toContain('900_a')
      const tables = (await s.db.introspection.getTables()).map((t) => t.name)
      expect(tables).not.toContain('t900_a')
      expect(tables).not.toContain('t901_b')
      fail = false
      expect(await migrate(s.db, s.dialect, set)).toEqual(['900_a', '901_b'])
    })
  })

  it('runs a migration numbered below one already applied (areas land in any order)', async () => {
    await withStore(await location(), async (s) => {
      await migrate(s.db, s.dialect, { ...migrations, '950_late': table('t950') })
      expect(
        await migrate(s.db, s.dialect, { ...migrations, '940_early': table('t940'), '950_late': table('t950') }),
      ).toEqual(['940_early'])
    })
  })

  it('tells an unreachable store from a bug in a query', async () => {
    await withStore(await location(), async (s) => {
      const bug = await sql`SELECT * FROM no_such_table`.execute(s.db).catch((e: unknown) => e)
      expect(isStoreUnavailable(bug)).toBe(false)
    })
    const refused = await openStore({ file: ':memory:', url: 'postgres://u:secret@127.0.0.1:1/db' }).catch(
      (e: unknown) => e,
    )
    expect(refused).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 })
    expect((refused as Error).message).toMatch(
      /^cannot reach the PostgreSQL store at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db \(set by PARX_STORE_URL or store\.url\): .*ECONNREFUSED/,
    )
    expect((refused as Error).message).not.toContain('secret')
    expect((refused as Error).message).not.toContain('\n')
  })
})
