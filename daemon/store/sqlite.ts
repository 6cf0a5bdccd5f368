import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely'
import { checkpointInBackground } from './checkpointer.js'

/**
 * Opens one better-sqlite3 connection with the settings every parx connection to parx.db uses
 * (the store's and the embedded Solana cluster's): WAL, so readers never block the writer, and
 * checkpoints in a worker thread, not in a commit (./checkpointer.ts), started once `checkpointsAfter`
 * resolves (the daemon's ready line).
 */
export function openSqlite(file: string, opts: { checkpointsAfter?: Promise<unknown> } = {}): Sqlite.Database {
  const inMemory = file === ':memory:'
  if (!inMemory) mkdirSync(dirname(file), { recursive: true })
  const db = new Sqlite(file)
  db.pragma('journal_mode = WAL')
  // NORMAL in WAL mode is durable across process crashes (only an OS crash can lose the last commit).
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  if (!inMemory) checkpointInBackground(db, file, undefined, opts.checkpointsAfter)
  return db
}

/**
 * SQLite has transactional DDL, but Kysely's adapter says otherwise, which would make its
 * Migrator commit each migration on its own: a start interrupted half way would leave part of a
 * migration applied and unrecorded. With this adapter all pending migrations commit together.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}

/**
 * Transactions take parx.db's write lock at BEGIN (IMMEDIATE), where SQLite waits for it
 * (busy_timeout). A deferred BEGIN reads first and upgrades at its first write, and an upgrade that
 * meets another connection's write lock (the checkpointer's RESTART, in its thread) fails at once
 * with "database is locked", without waiting: a spend's reservation (read the day's spends, then
 * insert) is that shape. The store's transactions hold no awaits but their own statements.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

class ParxSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config)
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config)
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter()
  }
}

export function sqliteDialect(file: string, opts: { checkpointsAfter?: Promise<unknown> } = {}): SqliteDialect {
  return new ParxSqliteDialect({ database: withStatementCache(openSqlite(file, opts)) })
}

/** Statements kept prepared: the store's queries are a few hundred distinct texts. */
const CACHED_STATEMENTS = 500

/**
 * Kysely's driver prepares every query's SQL anew; preparing is most of a small query's cost.
 * Statements are kept by their text and reused (better-sqlite3 runs them synchronously, so one is
 * never used by two queries at once; SQLite re-prepares one itself after a schema change).
 */
function withStatementCache(db: Sqlite.Database): SqliteDatabase {
  const cache = new Map<string, Sqlite.Statement>()
  return {
    prepare(sql: string) {
      let stmt = cache.get(sql)
      if (!stmt) {
        stmt = db.prepare(sql)
        if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value!)
        cache.set(sql, stmt)
      }
      return stmt
    },
    close: () => db.close(),
  }
}
