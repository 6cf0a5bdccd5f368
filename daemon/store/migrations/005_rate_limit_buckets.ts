import type { StoreMigration } from './migration.js'

/**
 * The API's token buckets when replicas share a PostgreSQL store (daemon/http/middleware/rate-limit-store.ts):
 * one row per caller, refilled and drawn by one upsert. Created on SQLite too (unused there: one
 * process keeps its buckets in memory) so both dialects have the same tables.
 */
export const m005_rate_limit_buckets: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('rate_limit_buckets')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('tokens', 'double precision', (c) => c.notNull())
      .addColumn('at', 'double precision', (c) => c.notNull())
      .addColumn('allowed', 'integer', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('rate_limit_buckets_at').on('rate_limit_buckets').column('at').execute()
  },
}
