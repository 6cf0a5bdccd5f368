import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import { checkpointerStopped, checkpointInBackground } from './checkpointer.js'
import { openSqlite } from './sqlite.js'
import { openStore } from './store.js'

const dirs: string[] = []
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parx-checkpoint-'))
  dirs.push(dir)
  return join(dir, 'parx.db')
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 50))
}
/** ~4 MB of rows, each its own commit (past SQLite's 1,000-page autocheckpoint). */
const writeMany = (db: Sqlite.Database) => {
  db.exec('CREATE TABLE IF NOT EXISTS t (v BLOB)')
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)')
  for (let i = 0; i < 1000; i++) insert.run(Buffer.alloc(4096, i % 256))
}

describe('checkpointInBackground', () => {
  it('commits never checkpoint; the worker copies the WAL into the database file', async () => {
    const file = tempFile()
    const db = openSqlite(file)
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    const before = statSync(file).size
    writeMany(db)
    // The rows are in the database file only once a checkpoint ran, and only the worker runs one.
    await until(() => statSync(file).size > before + 4_000_000)
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1000)
    db.close()
  })

  it("two connections to one file share the worker; the file's last close still ends clean", async () => {
    const file = tempFile()
    const a = openSqlite(file)
    const b = openSqlite(join(file, '..', 'parx.db'))
    writeMany(a)
    a.close()
    const before = statSync(file).size
    b.exec('INSERT INTO t (v) VALUES (zeroblob(8192))')
    await until(() => statSync(file).size > before)
    b.close()
    // The last connection to close (the worker's, once told) checkpoints and removes the WAL, as SQLite always does.
    await until(() => statSync(`${file}-wal`, { throwIfNoEntry: false }) === undefined)
    const again = new Sqlite(file)
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1001)
    again.close()
  })

  it('a closed store is closed: its checkpointer has closed its connection and the WAL is gone when close() returns', async () => {
    for (let round = 0; round < 5; round++) {
      const file = tempFile()
      const store = await openStore({ file })
      // The embedded Solana cluster's connection to the same file, as the daemon has it.
      const chain = openChainDb(file)
      chain.prepare("INSERT INTO solana_meta (key, value) VALUES ('k', 'v')").run()
      await store.db.selectFrom('deployments').selectAll().execute()
      // Megabytes in the WAL, so the worker is likely copying them when it is told to stop.
      writeMany(chain)
      await new Promise((r) => setTimeout(r, 450 + round * 20))
      expect(existsSync(`${file}-wal`)).toBe(true)
      chain.close()
      await store.close()
      expect(existsSync(`${file}-wal`), `round ${round}`).toBe(false)
      expect(existsSync(`${file}-shm`), `round ${round}`).toBe(false)
      await checkpointerStopped(file)
    }
  })

  it('with startAfter, its worker starts only once that resolves (the daemon passes its ready line)', async () => {
    const file = tempFile()
    const db = new Sqlite(file)
    db.pragma('journal_mode = WAL')
    let go!: () => void
    // A worker that cannot load its driver gives the connection its checkpoint on commit back at once: that is what shows it ran.
    checkpointInBackground(
      db,
      file,
      join(file, '..', 'no-such-driver.js'),
      new Promise<void>((resolve) => (go = resolve)),
    )
    await new Promise((r) => setTimeout(r, 1_000))
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    go()
    await until(() => db.pragma('wal_autocheckpoint', { simple: true }) === 1000)
    db.close()
  })

  it('closed before startAfter resolved: closed at once, and no worker starts after', async () => {
    const file = tempFile()
    let go!: () => void
    const db = openSqlite(file, { checkpointsAfter: new Promise<void>((resolve) => (go = resolve)) })
    writeMany(db)
    db.close()
    await checkpointerStopped(file)
    // The last close checkpointed and removed the WAL itself, as SQLite does.
    expect(existsSync(`${file}-wal`)).toBe(false)
    go()
    await new Promise((r) => setTimeout(r, 200))
    expect(existsSync(`${file}-wal`)).toBe(false)
  })

  it('a worker that cannot run gives the connection back its checkpoint on commit', async () => {
    const file = tempFile()
    const db = new Sqlite(file)
    db.pragma('journal_mode = WAL')
    checkpointInBackground(db, file, join(file, '..', 'no-such-driver.js'))
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    await until(() => db.pragma('wal_autocheckpoint', { simple: true }) === 1000)
    db.close()
  })
})
