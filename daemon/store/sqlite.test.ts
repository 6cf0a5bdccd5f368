import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { holdWriteLock } from '../../test/helpers/sqlite-lock.js'
import { sqliteDialect } from './sqlite.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the store's SQLite transactions", () => {
  it("wait for another connection's write lock instead of failing one that reads before it writes", async () => {
    const file = join(dir, 'parx.db')
    const db = new Kysely<{ t: { n: number } }>({ dialect: sqliteDialect(file) })
    await sql`CREATE TABLE t (n INTEGER)`.execute(db)
    await holdWriteLock(file, 300)
    // A spend's reservation has this shape: read (the day's sum), then insert. A deferred BEGIN
    // would hold a read snapshot when the insert needs the lock: "database is locked", at once.
    const n = await db.transaction().execute(async (tx) => {
      const { c } = await tx
        .selectFrom('t')
        .select((e) => e.fn.countAll<number>().as('c'))
        .executeTakeFirstOrThrow()
      await tx
        .insertInto('t')
        .values({ n: Number(c) + 1 })
        .execute()
      return Number(c) + 1
    })
    expect(n).toBe(1)
    expect(await db.selectFrom('t').selectAll().execute()).toEqual([{ n: 1 }])
    await db.destroy()
  })
})
