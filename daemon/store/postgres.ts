import { PostgresDialect } from 'kysely'
import pg from 'pg'

export type PostgresDialectParameters = {
  url: string
  /** Connections in the pool (default 10). */
  max?: number
  /** Errors of idle connections (a server restart): logged, the pool replaces them. */
  onIdleError?: (err: Error) => void
}

// int8 (bigint) columns hold epoch milliseconds, ids and slots, all far below 2^53: read them as
// numbers, as SQLite does, rather than pg's default strings. Amounts are TEXT in both dialects.
const INT8_OID = 20
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== 'binary'
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

export function postgresDialect(p: PostgresDialectParameters): { dialect: PostgresDialect; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: p.url,
    max: p.max ?? 10,
    types,
    // A store that is down fails the request in seconds (503) instead of holding it.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  })
  // Without a listener, an idle connection dropped by the server would crash the process.
  pool.on('error', (err) => p.onIdleError?.(err))
  // The pool listens only to idle connections: one checked out and waiting (the pinned connection of
  // a Solana reservation lock, a transaction between queries) needs its own listener, or a server
  // restart crashes the process. Its next query fails, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', (err) => p.onIdleError?.(err)))
  return { dialect: new PostgresDialect({ pool }), pool }
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'postgres://...'
  }
}
