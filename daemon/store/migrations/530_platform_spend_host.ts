import type { StoreMigration } from './migration.js'

/**
 * The seller's host on a pay spend (530), as the limit check saw it: payment history and the
 * dashboard filter and total by it. Sends and swaps have none; spends made before 530 have none.
 */
export const m530_platform_spend_host: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('platform_spends').addColumn('host', 'text').execute()
  },
}
