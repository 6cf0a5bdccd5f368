import type { StoreMigration } from './migration.js'

/** Seller endpoints: served at /paid/<id>, gated by x402, forwarded to the upstream after payment. */
export const m501_platform_endpoints: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('platform_users.id'))
      .addColumn('name', 'text')
      .addColumn('upstream_url', 'text', (c) => c.notNull())
      .addColumn('price', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('pay_to', 'text', (c) => c.notNull())
      .addColumn('pay_to_agent_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute()
    await db.schema.createIndex('platform_endpoints_user').on('platform_endpoints').column('user_id').execute()
  },
}
