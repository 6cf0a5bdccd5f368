import Database from 'better-sqlite3'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export type Db = Database.Database

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations')

/**
 * Opens the SQLite store and applies pending migrations.
 * Migrations are `migrations/*.sql`, applied once each in name order and recorded by name, so
 * areas can add theirs (001-099 foundation, 100s swaps, 200s facilitator, 300s Solana,
 * 400s cross-chain, 500s platform) without colliding.
 */
export function openStore(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  // NORMAL in WAL mode is durable across process crashes (only an OS crash can lose the last commit).
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

export function migrate(db: Db): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = new Set(db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[])
  const pending = readdirSync(migrationsDir).filter((f) => f.endsWith('.sql') && !applied.has(f)).sort()
  const record = db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
  for (const name of pending) {
    db.transaction(() => {
      db.exec(readFileSync(join(migrationsDir, name), 'utf8'))
      record.run(name, Date.now())
    })()
  }
  return pending
}
