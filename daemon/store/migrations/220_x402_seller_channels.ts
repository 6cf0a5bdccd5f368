import type { StoreMigration } from './migration.js'

/**
 * The seller's batch-settlement channels (issue 27, item 3): what each channel was charged, the
 * newest voucher, the mirrored on-chain state and the one request holding it. Every change is a
 * compare-and-set on this row (daemon/seller/batch-settlement/channel-store.ts), so replicas on one PostgreSQL
 * never both accept the same voucher increment.
 */
export const m220_x402_seller_channels: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('x402_seller_channels')
      .addColumn('channel_id', 'text', (c) => c.primaryKey())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('receiver', 'text', (c) => c.notNull())
      .addColumn('charged', 'text', (c) => c.notNull())
      .addColumn('signed_max', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('balance', 'text', (c) => c.notNull())
      .addColumn('total_claimed', 'text', (c) => c.notNull())
      .addColumn('withdraw_requested_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('refund_nonce', 'text', (c) => c.notNull())
      .addColumn('synced_at', 'bigint')
      .addColumn('last_request_at', 'bigint', (c) => c.notNull())
      .addColumn('pending_id', 'text')
      .addColumn('pending_expires_at', 'bigint')
      .addColumn('tag', 'text')
      .execute()
  },
}
