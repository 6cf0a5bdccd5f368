import type { StoreMigration } from './migration.js'

/**
 * Spends held until a signed payment expires (520): a pay spend records, once signed, the proof
 * that tells on chain whether it was used (`proof`, JSON) and the last moment it can be
 * (`valid_before`, unix seconds). A `reserved` spend with these is not released before that moment
 * has passed on chain; the worker leader rechecks it then (daemon/buyer/pending-spends.ts).
 */
export const m520_platform_spend_holds: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('platform_spends').addColumn('valid_before', 'bigint').execute()
    await db.schema.alterTable('platform_spends').addColumn('proof', 'text').execute()
    await db.schema
      .createIndex('platform_spends_state_valid_before')
      .on('platform_spends')
      .columns(['state', 'valid_before'])
      .execute()
  },
}
