import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import type Sqlite from 'better-sqlite3'

/** How often the background connection copies committed pages from the WAL into the database file. */
export const CHECKPOINT_EVERY_MS = 500
/**
 * A passive checkpoint never waits for the writer, so under constant writes the WAL is never quite
 * all copied and never starts over; past this size the checkpoint waits for a gap between writes
 * (RESTART) so the next commit writes the WAL from its start again.
 */
export const RESTART_WAL_ABOVE_BYTES = 64 * 1024 * 1024
/** SQLite's own default, put back on the connections if the background checkpointer cannot run. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000

/** `worker` is absent until `startAfter` (checkpointInBackground) has resolved. */
type Checkpointer = { worker?: Worker; connections: Set<Sqlite.Database>; exited?: Promise<void> }
const byFile = new Map<string, Checkpointer>()
/** Workers told to stop, by file, until they have closed their connection and ended. */
const stopping = new Map<string, Promise<void>>()

/**
 * Resolves once no checkpointer of `path` is running: after the file's last connection closed,
 * its worker has closed its own connection too (checkpointing and removing the WAL, as SQLite does
 * at the last close) and ended. `db.close()` is synchronous and cannot wait for that; whoever
 * closes the store awaits this, so a stopped daemon's data dir is settled when stop() returns.
 */
export function checkpointerStopped(path: string): Promise<void> {
  return stopping.get(resolve(path)) ?? Promise.resolve()
}

/**
 * Moves WAL checkpoints of one database file off the daemon's thread. By default SQLite
 * checkpoints inside the commit that crosses 1,000 WAL pages, and a checkpoint syncs the database
 * file: one commit in a few hundred held the event loop ~5 ms (measured: p99 of an insert and an
 * update 5 ms with it, 0.3 ms without), and every request in flight waited with it. So commits on
 * `db` never checkpoint (`wal_autocheckpoint = 0`); one worker thread per file, with its own
 * connection, does it every CHECKPOINT_EVERY_MS. Durability is unchanged: a commit is in the WAL
 * either way. Should the worker fail, the connections checkpoint on commit again, as SQLite does.
 * The worker stops when the file's last connection closes (`db.close()`); `checkpointerStopped`
 * tells when it has.
 * `driver`: where better-sqlite3 loads from in the worker (a test gives one that fails).
 * `startAfter`: the worker starts once it resolves (the daemon passes its ready line): a thread's
 * start costs ~0.2 s of CPU, which `parx serve` on two cores waited for. Until then commits do not
 * checkpoint either, so the WAL of a start (a few pages) waits for the worker's first round.
 */
export function checkpointInBackground(
  db: Sqlite.Database,
  path: string,
  driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  startAfter?: Promise<unknown>,
): void {
  const file = resolve(path)
  let c = byFile.get(file)
  if (!c) {
    const entry: Checkpointer = { connections: new Set() }
    const start = () => {
      // Every connection closed before startAfter resolved: nothing to checkpoint for.
      if (startAfter && entry.connections.size === 0) return
      const worker = new Worker(source, {
        eval: true,
        workerData: { file, everyMs: CHECKPOINT_EVERY_MS, restartAbove: RESTART_WAL_ABOVE_BYTES, driver },
      })
      worker.unref()
      entry.worker = worker
      entry.exited = new Promise<void>((done) => worker.once('exit', () => done()))
      worker.once('error', () => {
        for (const conn of entry.connections)
          if (conn.open) conn.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`)
        if (byFile.get(file) === entry) byFile.delete(file)
      })
    }
    if (startAfter !== undefined) startAfter.then(start, () => {})
    else start()
    byFile.set(file, (c = entry))
  }
  const entry = c
  entry.connections.add(db)
  db.pragma('wal_autocheckpoint = 0')
  const close = db.close.bind(db)
  db.close = () => {
    if (entry.connections.delete(db) && entry.connections.size === 0) {
      if (byFile.get(file) === entry) byFile.delete(file)
      if (!entry.worker || !entry.exited) return close()
      // This connection closes first, then the worker its own and ends: the worker's is the last,
      // which checkpoints and removes the WAL. Told before this one had closed, the worker could
      // close at the same moment, each connection see the other, and neither remove it.
      const closed = close()
      // Held until it has ended: whoever awaits checkpointerStopped must not see the event loop run
      // dry under it (an unref'd worker alone keeps nothing alive: node exits 13 mid-await).
      entry.worker.ref()
      entry.worker.postMessage('close')
      stopping.set(file, entry.exited)
      void entry.exited.then(() => {
        if (stopping.get(file) === entry.exited) stopping.delete(file)
      })
      return closed
    }
    return close()
  }
}

// The worker's whole program: its modules come from process.getBuiltinModule, better-sqlite3 from the path resolved
// here.
const source = `
  const { workerData, parentPort } = process.getBuiltinModule('node:worker_threads')
  const fs = process.getBuiltinModule('node:fs')
  const Sqlite = process.getBuiltinModule('node:module').createRequire(workerData.driver)(workerData.driver)
  const db = new Sqlite(workerData.file)
  db.pragma('busy_timeout = 100')
  // The WAL as the last checkpoint that copied everything left it: unchanged since, nothing is to copy (an idle
  // daemon).
  let seen
  const timer = setInterval(() => {
    try {
      const wal = fs.statSync(workerData.file + '-wal', { throwIfNoEntry: false })
      const size = wal?.size ?? 0
      const mark = wal ? size + ':' + wal.mtimeMs : 'none'
      if (mark === seen) return
      const r = db.pragma(size > workerData.restartAbove ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)')[0]
      seen = r && r.busy === 0 && r.log === r.checkpointed ? mark : undefined
    } catch {
      // Busy (a RESTART that found no gap) or the file going away at stop: the next round tries again.
    }
  }, workerData.everyMs)
  parentPort.once('message', () => {
    clearInterval(timer)
    db.close()
    parentPort.close()
  })
`
