import type { StoreMigration } from './migration.js'

/**
 * The dashboard's sign-in token buckets (daemon/dashboard/login-limiter.ts), the API's shape
 * (migration 005) in a table of their own: its own refill rate and sweep, so the API limiter's
 * sweep (full after a few seconds) never empties a sign-in bucket that takes a minute to refill.
 * Used when replicas share PostgreSQL; created on SQLite too so both dialects have the same tables.
 */
export const m610_dashboard_login_buckets: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('dashboard_login_buckets')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('tokens', 'double precision', (c) => c.notNull())
      .addColumn('at', 'double precision', (c) => c.notNull())
      .addColumn('allowed', 'integer', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('dashboard_login_buckets_at').on('dashboard_login_buckets').column('at').execute()
  },
}
