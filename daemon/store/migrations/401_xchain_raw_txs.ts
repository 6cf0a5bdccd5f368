import type { StoreMigration } from './migration.js'

/**
 * The signed claim and refund transactions themselves, beside their references: they are persisted
 * before the broadcast, so a process that dies in between leaves one the next leader can send at
 * once (the same transaction, so it lands at most once), instead of waiting ~60 s for its blockhash
 * to expire before it may sign another.
 */
export const m401_xchain_raw_txs: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('xchain_orders').addColumn('claim_raw', 'text').execute()
    await db.schema.alterTable('xchain_orders').addColumn('refund_raw', 'text').execute()
  },
}
