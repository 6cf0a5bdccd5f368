import { sql } from 'kysely'
import type { StoreMigration } from './migration.js'

/** Partner API keys: only the sha256 of the secret is kept. */
export const m001_partner_keys: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('partner_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('hint', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('active', 'deactivated', 'deleted')`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('partner_keys_owner').on('partner_keys').column('owner').execute()
  },
}
