import { Kysely, sql } from 'kysely'
import { BaseError } from '../../src/errors/index.js'
import { checkpointerStopped } from './checkpointer.js'
import type { Database } from './database.js'
import { migrate } from './migrate.js'
import type { StoreDialect } from './migrations/migration.js'
import { sqliteDialect } from './sqlite.js'
import { isStoreUnavailable } from './unavailable.js'

/**
 * The daemon's one data layer: typed queries (Kysely) over SQLite (embedded, the default) or
 * PostgreSQL (hosted). Every call is async; each statement outside `db.transaction()` commits
 * on its own. Service stores (partner keys, settlements, ...) take a Store and own their queries.
 */
export type Store = {
  readonly db: Kysely<Database>
  readonly dialect: StoreDialect
  /** One round trip; throws when the store cannot be reached. */
  ping(): Promise<void>
  close(): Promise<void>
  /** PostgreSQL only: the connection pool's connections (daemon/metrics/process-gauges.ts). */
  poolUsage?(): { total: number; idle: number; waiting: number }
}

export type OpenStoreParameters = {
  /** `postgres://...` for PostgreSQL; absent means SQLite in `file`. */
  url?: string
  /** The SQLite file (`<data-dir>/parx.db`), or `:memory:`. */
  file: string
  /** Errors a PostgreSQL pool reports on idle connections. */
  onIdleError?: (err: Error) => void
  /** SQLite: its background checkpointer starts once this resolves (the daemon passes its ready line). */
  checkpointsAfter?: Promise<unknown>
}

/**
 * Opens the store and applies pending migrations.
 *
 * @example
 * const store = await openStore({ file: storePath(dataDir), url: config.store.url })
 * const rows = await store.db.selectFrom('deployments').selectAll().execute()
 */
export async function openStore(p: OpenStoreParameters): Promise<Store> {
  const dialect: StoreDialect = p.url ? 'postgres' : 'sqlite'
  // The PostgreSQL driver loads only for a PostgreSQL store.
  const postgres = p.url ? await import('./postgres.js') : undefined
  const pg = p.url ? postgres?.postgresDialect({ url: p.url, onIdleError: p.onIdleError }) : undefined
  const db = pg
    ? new Kysely<Database>({ dialect: pg.dialect })
    : new Kysely<Database>({ dialect: sqliteDialect(p.file, { checkpointsAfter: p.checkpointsAfter }) })
  try {
    await migrate(db, dialect)
  } catch (e) {
    await db.destroy().catch(() => {})
    if (p.url && isStoreUnavailable(e)) {
      const reason =
        e instanceof AggregateError ? e.errors.map((x) => (x as Error).message).join('; ') : (e as Error).message
      throw new BaseError(
        'STORE_UNAVAILABLE',
        `cannot reach the PostgreSQL store at ${postgres!.redactUrl(p.url)} ` +
          `(set by PARX_STORE_URL or store.url): ${reason}`,
        { cause: e },
      )
    }
    throw e
  }
  return {
    db,
    dialect,
    ping: async () => void (await sql`SELECT 1`.execute(db)),
    ...(pg
      ? { poolUsage: () => ({ total: pg.pool.totalCount, idle: pg.pool.idleCount, waiting: pg.pool.waitingCount }) }
      : {}),
    close: async () => {
      await db.destroy()
      // Closed means closed: the SQLite checkpointer's own connection too (./checkpointer.ts).
      if (dialect === 'sqlite') await checkpointerStopped(p.file)
    },
  }
}
