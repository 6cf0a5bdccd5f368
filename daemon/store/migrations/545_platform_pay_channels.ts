import type { StoreMigration } from './migration.js'

/**
 * The agents' own x402 batch-settlement channels (545): one row per channel an agent pays a seller
 * through (daemon/buyer/batch-settlement/), and on the spends ledger which channel a spend belongs to and
 * whether it is the deposit (money in escrow, counted until refunded) or a voucher drawn on it.
 * Amounts are base units of the channel's token as decimal strings (uint128 does not fit a bigint column).
 */
export const m545_platform_pay_channels: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_pay_channels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('receiver', 'text', (c) => c.notNull())
      .addColumn('receiver_authorizer', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('deposited', 'text', (c) => c.notNull())
      .addColumn('signed', 'text', (c) => c.notNull())
      .addColumn('charged', 'text', (c) => c.notNull())
      .addColumn('refunded', 'text', (c) => c.notNull())
      .addColumn('refund_nonce', 'text', (c) => c.notNull())
      .addColumn('pending_deposit', 'text')
      .addColumn('pending_spend', 'text')
      .addColumn('lease', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_pay_channels_agent')
      .on('platform_pay_channels')
      .columns(['agent_id', 'created_at'])
      .execute()
    await db.schema.alterTable('platform_spends').addColumn('channel_id', 'text').execute()
    await db.schema.alterTable('platform_spends').addColumn('channel_role', 'text').execute()
    await db.schema
      .createIndex('platform_spends_channel')
      .on('platform_spends')
      .columns(['channel_id', 'channel_role'])
      .execute()
  },
}
