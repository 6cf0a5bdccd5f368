import type { StoreMigration } from './migration.js'

/**
 * The platform's signed receipts of settled pays (650), one per pay spend (`payment_id` is the
 * spend's id), written when the pay is recorded settled and before the agent hears of it
 * (daemon/buyer/receipts/). `message` is the signed EIP-712 message as JSON; `seller_receipt`
 * the seller's own signed receipt (x402 offer-receipt) when its answer carried one.
 */
export const m650_payment_receipts: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_receipts')
      .addColumn('payment_id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('signer', 'text', (c) => c.notNull())
      .addColumn('seller_receipt', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_receipts_agent')
      .on('platform_receipts')
      .columns(['agent_id', 'created_at'])
      .execute()
  },
}
