import type { StoreMigration } from './migration.js'

/**
 * The answers of paid requests by payment id (issue 39, item 4): a repeat of the same payment is
 * answered what the first request was, by whichever replica it reaches, and waits while the first
 * is still being served (daemon/seller/answer-store.ts). `key` is a digest of the gate's scope, the
 * payee and the payment id; a row without `status` is a request still serving it until `lease_until`.
 */
export const m230_x402_seller_answers: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('x402_seller_answers')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('headers', 'text')
      .addColumn('body', 'text')
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('kept_at', 'bigint')
      .execute()
    await db.schema.createIndex('x402_seller_answers_expiry').on('x402_seller_answers').column('expires_at').execute()
  },
}
