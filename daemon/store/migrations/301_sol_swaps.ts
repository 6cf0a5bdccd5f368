import { sql } from 'kysely'
import { type StoreMigration, withAutoId } from './migration.js'

/**
 * Solana swaps the daemon built and co-signed (POST /api/sol/swap, /api/sol/redeem). The solver
 * signs before the user submits, so a row is written when the transaction is handed out and
 * follows it: built -> confirmed | failed (landed, fee paid) | expired (blockhash passed unsubmitted).
 * While `built` and unexpired, out_amount is promised from the solver's inventory (a reservation).
 */
export const m301_sol_swaps: StoreMigration = {
  async up(db, dialect) {
    await withAutoId(db.schema.createTable('sol_swaps'), dialect)
      .addColumn('signature', 'text', (c) => c.notNull().unique())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('user', 'text', (c) => c.notNull())
      .addColumn('in_symbol', 'text', (c) => c.notNull())
      .addColumn('out_symbol', 'text', (c) => c.notNull())
      .addColumn('out_mint', 'text', (c) => c.notNull())
      .addColumn('in_amount', 'text', (c) => c.notNull())
      .addColumn('out_amount', 'text', (c) => c.notNull())
      .addColumn('blockhash', 'text', (c) => c.notNull())
      .addColumn('last_valid_block_height', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('built', 'confirmed', 'failed', 'expired')`))
      .addColumn('slot', 'bigint')
      .addColumn('err', 'text')
      .addColumn('settled_seq', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('sol_swaps_open').on('sol_swaps').columns(['status', 'out_mint']).execute()
    await db.schema.createIndex('sol_swaps_settled').on('sol_swaps').column('settled_seq').execute()
  },
}
