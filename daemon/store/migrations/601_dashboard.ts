import type { StoreMigration } from './migration.js'

/**
 * The dashboard (6xx): partner keys bound to the wallet that signed in (null for keys made through
 * the operator routes, which keep working), their last use, SIWE nonces (single use by primary
 * key) and sessions (in the store so every API replica sees them).
 */
export const m601_dashboard: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('partner_keys').addColumn('owner_wallet', 'text').execute()
    await db.schema.alterTable('partner_keys').addColumn('last_used_at', 'bigint').execute()
    await db.schema.createIndex('partner_keys_owner_wallet').on('partner_keys').column('owner_wallet').execute()
    await db.schema
      .createTable('dashboard_nonces')
      .addColumn('nonce', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('dashboard_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('wallet', 'text', (c) => c.notNull())
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
