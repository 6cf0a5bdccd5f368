import type { StoreMigration } from './migration.js'

/**
 * The payer's own way out of a channel (546): a withdrawal started on the contract
 * (`withdraw_amount` asked, `withdraw_requested_at` epoch ms, `withdraw_finalizable_at` epoch ms of
 * chain time, all null when none is pending) and `withdrawn`, what finalized withdrawals returned
 * (base units, decimal string). While one is pending the channel signs no voucher.
 */
export const m546_platform_pay_channel_withdrawals: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('platform_pay_channels').addColumn('withdraw_amount', 'text').execute()
    await db.schema.alterTable('platform_pay_channels').addColumn('withdraw_requested_at', 'bigint').execute()
    await db.schema.alterTable('platform_pay_channels').addColumn('withdraw_finalizable_at', 'bigint').execute()
    await db.schema
      .alterTable('platform_pay_channels')
      .addColumn('withdrawn', 'text', (c) => c.notNull().defaultTo('0'))
      .execute()
  },
}
