import { sql } from 'kysely'
import type { Store } from '../store/store.js'
import { type KeyedLock, processLock } from './lock.js'

/**
 * The replica-safe KeyedLock: a PostgreSQL session advisory lock per key, held on one pinned
 * connection of the store's pool for the critical section, so sections of one key run one at a
 * time across every process on the database. Within a process the in-process lock queues first:
 * each process then holds at most one pool connection per key while waiting, and the section's own
 * queries (through the pool) always find a free one. A process that dies mid-section loses its
 * connection, and with it the lock. On SQLite (one process) it is the in-process lock.
 */
export function storeLock(store: Store): KeyedLock {
  const local = processLock()
  if (store.dialect !== 'postgres') return local
  return {
    run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      return local.run(key, () =>
        store.db.connection().execute(async (conn) => {
          // hashtextextended: a stable 64-bit key from the text, in the server.
          const id = sql`hashtextextended(${`parx:${key}`}, 0)`
          await sql`SELECT pg_advisory_lock(${id})`.execute(conn)
          try {
            return await fn()
          } finally {
            // Should the unlock fail, the connection is broken, and the server frees the lock with it.
            await sql`SELECT pg_advisory_unlock(${id})`.execute(conn).catch(() => {})
          }
        }),
      )
    },
  }
}
