import type { StoreMigration } from './migration.js'

/**
 * Agents' x402 auth-capture holds (issue 40, item 4): one row per payment, keyed by the escrow's
 * paymentInfoHash, beside the spend that counts its maximum against the agent's limits until the
 * chain shows what was captured, voided, refunded or reclaimed (daemon/buyer/holds/).
 */
export const m660_agent_holds: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_agent_holds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('spend_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('decimals', 'integer', (c) => c.notNull())
      .addColumn('escrow', 'text', (c) => c.notNull())
      .addColumn('payment_info', 'text', (c) => c.notNull())
      .addColumn('max_amount', 'text', (c) => c.notNull())
      .addColumn('captured', 'text', (c) => c.notNull())
      .addColumn('voided', 'text', (c) => c.notNull())
      .addColumn('refunded', 'text', (c) => c.notNull())
      .addColumn('reclaimed', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('capture_deadline', 'bigint', (c) => c.notNull())
      .addColumn('refund_deadline', 'bigint', (c) => c.notNull())
      .addColumn('tx', 'text')
      .addColumn('reclaim_tx', 'text')
      .addColumn('from_block', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_agent_holds_status')
      .on('platform_agent_holds')
      .columns(['status', 'capture_deadline'])
      .execute()
    await db.schema.createIndex('platform_agent_holds_spend').on('platform_agent_holds').column('spend_id').execute()
  },
}
