import { sql } from 'kysely'
import { type StoreMigration, withAutoId } from './migration.js'

/**
 * x402 payment identifiers (the `payment-identifier` extension): one row per client-chosen id per
 * seller. The unique (scope, payment_id) index binds an id to the first payload that used it, on
 * SQLite and across replicas sharing PostgreSQL alike: a second payload under the same id is
 * refused, and the same payload is answered from the row, never settled twice.
 *
 * `x402_settlements.reported`: whether the settle that owns a settled row told its caller so. A row
 * answered `settlement_pending` and finished in the background is 0, and exactly one later settle
 * of the same authorization (the seller's retry) is told `success`; rows from before are 1.
 */
export const m210_x402_payment_ids: StoreMigration = {
  async up(db, dialect) {
    await withAutoId(db.schema.createTable('x402_payment_ids'), dialect)
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('payment_id', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('verify_answer', 'text')
      .addColumn('settle_answer', 'text')
      .addColumn('settlement_id', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('x402_payment_ids_scope_id')
      .on('x402_payment_ids')
      .columns(['scope', 'payment_id'])
      .unique()
      .execute()
    await db.schema
      .alterTable('x402_settlements')
      .addColumn('reported', 'integer', (c) => c.notNull().defaultTo(1))
      .execute()
    // The status route finds payments by their transaction.
    await db.schema
      .createIndex('x402_settlements_tx')
      .on('x402_settlements')
      .column('tx')
      .where(sql<boolean>`tx IS NOT NULL`)
      .execute()
  },
}
