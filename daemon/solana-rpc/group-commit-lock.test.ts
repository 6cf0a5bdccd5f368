import { afterAll, describe, expect, it } from 'vitest'
import { holdWriteLock } from '../../test/helpers/sqlite-lock.js'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import { GroupCommit } from './group-commit.js'
import { tempDir } from './testing.js'

const dir = tempDir()
afterAll(() => dir.remove())

describe("group commit under another connection's write lock", () => {
  it('waits for the lock (busy_timeout) instead of failing a task that reads before it writes', async () => {
    const file = `${dir.dir}/parx.db`
    const db = openChainDb(file)
    db.exec('CREATE TABLE IF NOT EXISTS t (n INTEGER)')
    const group = new GroupCommit(db)
    await holdWriteLock(file, 300)
    // A read then a write, as a processed transaction does (its accounts, then their rows): a
    // deferred BEGIN would hold a read snapshot when the write needs the lock, and SQLite answers
    // such an upgrade "database is locked" at once, without waiting.
    const written = await group.run(() => {
      const before = (db.prepare('SELECT count(*) AS c FROM t').get() as { c: number }).c
      db.prepare('INSERT INTO t (n) VALUES (?)').run(before + 1)
      return before + 1
    })
    expect(written).toBe(1)
    expect(db.prepare('SELECT n FROM t').all()).toEqual([{ n: 1 }])
    db.close()
  })
})
