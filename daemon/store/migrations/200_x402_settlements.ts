import { sql } from 'kysely'
import { type StoreMigration, withAutoId } from './migration.js'

/**
 * x402 settlements: one row per attempt to settle an authorization. A row is written (pending)
 * before anything is broadcast and finished (settled or failed) before /settle answers, so a
 * second /settle of the same authorization, on this process or another, finds it and never pays twice.
 */
export const m200_x402_settlements: StoreMigration = {
  async up(db, dialect) {
    await withAutoId(db.schema.createTable('x402_settlements'), dialect)
      .addColumn('auth_key', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('payer', 'text')
      .addColumn('pay_to', 'text', (c) => c.notNull())
      .addColumn('asset', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('pending', 'settled', 'failed')`))
      .addColumn('tx', 'text')
      .addColumn('reason', 'text')
      .addColumn('message', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    // At most one live (pending or settled) row per authorization: the insert that wins is the
    // settle that runs. Failed attempts stay as history and do not block a retry.
    await db.schema
      .createIndex('x402_settlements_live')
      .on('x402_settlements')
      .column('auth_key')
      .unique()
      .where(sql<boolean>`state IN ('pending', 'settled')`)
      .execute()
    await db.schema
      .createIndex('x402_settlements_pending')
      .on('x402_settlements')
      .column('state')
      .where(sql<boolean>`state = 'pending'`)
      .execute()
  },
}
