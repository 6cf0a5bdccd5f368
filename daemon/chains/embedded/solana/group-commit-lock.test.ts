import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { openChainDb } from './chain-db.js'
import { GroupCommit } from './group-commit.js'
import { tempDir } from './testing.js'

const dir = tempDir()
afterAll(() => dir.remove())

/** Another connection to the file, in a thread of its own, holds its write lock for `ms` (as a RESTART checkpoint does while it waits for readers). */
function holdWriteLock(file: string, ms: number): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads')
    const db = new (require(workerData.driver))(workerData.file)
    db.exec('BEGIN IMMEDIATE')
    parentPort.postMessage('held')
    const until = Date.now() + workerData.ms
    while (Date.now() < until) {}
    db.exec('COMMIT'); db.close()
  `, { eval: true, workerData: { file, ms, driver } })
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
}

describe('group commit under another connection\'s write lock', () => {
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
