import type { StoreMigration } from './migration.js'

/**
 * Seller endpoints may offer x402 auth-capture beside exact (issue 40, item 3): an integer 0/1 on
 * both dialects, as `batch_settlement`; and the holds the seller gate keeps (x402_seller_holds),
 * tagged with the endpoint id, so a capture, void or refund can be authored later by any replica.
 */
export const m560_endpoint_auth_capture: StoreMigration = {
  async up(db) {
    await db.schema
      .alterTable('platform_endpoints')
      .addColumn('auth_capture', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .createTable('x402_seller_holds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('requirements', 'text', (c) => c.notNull())
      .addColumn('payment_info', 'text', (c) => c.notNull())
      .addColumn('salt_nonce', 'text', (c) => c.notNull())
      .addColumn('payer', 'text', (c) => c.notNull())
      .addColumn('pay_to', 'text', (c) => c.notNull())
      .addColumn('max_amount', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('captured', 'text', (c) => c.notNull())
      .addColumn('voided', 'text', (c) => c.notNull())
      .addColumn('refunded', 'text', (c) => c.notNull())
      .addColumn('capture_deadline', 'bigint', (c) => c.notNull())
      .addColumn('refund_deadline', 'bigint', (c) => c.notNull())
      .addColumn('authorize_tx', 'text', (c) => c.notNull())
      .addColumn('capture_tx', 'text', (c) => c.notNull())
      .addColumn('tag', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('x402_seller_holds_status')
      .on('x402_seller_holds')
      .columns(['status', 'created_at'])
      .execute()
  },
}
