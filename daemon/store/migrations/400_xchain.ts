import { sql } from 'kysely'
import type { StoreMigration } from './migration.js'

/**
 * Cross-chain orders (issue 12): one row per order the service built, with the whole order (so the
 * worker can deliver, claim or refund it after any restart), its step, references and failures;
 * the attestations collected for it; inventory held for it (or by the internal reserve route); and
 * the solver's switches and liveness, shared by every process on the store.
 */
export const m400_xchain: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('xchain_orders')
      .addColumn('order_id', 'text', (c) => c.primaryKey())
      .addColumn('rail', 'text', (c) => c.notNull().check(sql`rail IN ('sol-origin', 'evm-origin')`))
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('user', 'text', (c) => c.notNull())
      .addColumn('in_symbol', 'text', (c) => c.notNull())
      .addColumn('out_symbol', 'text', (c) => c.notNull())
      .addColumn('input_token', 'text', (c) => c.notNull())
      .addColumn('input_amount', 'text', (c) => c.notNull())
      .addColumn('dest_chain', 'text', (c) => c.notNull())
      .addColumn('output_token', 'text', (c) => c.notNull())
      .addColumn('output_amount', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('fill_deadline', 'bigint', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('order_data', 'text', (c) => c.notNull())
      .addColumn('open_ref', 'text')
      .addColumn('open_valid_until', 'bigint')
      .addColumn('deliver_ref', 'text')
      .addColumn('delivered', 'text')
      .addColumn('claim_ref', 'text')
      .addColumn('claim_valid_until', 'bigint')
      .addColumn('refund_ref', 'text')
      .addColumn('refund_valid_until', 'bigint')
      .addColumn('reason', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('xchain_orders_stage').on('xchain_orders').columns(['stage', 'rail']).execute()

    await db.schema
      .createTable('xchain_attestations')
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('attestor', 'integer', (c) => c.notNull())
      .addColumn('signer', 'text', (c) => c.notNull())
      .addColumn('statement', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('xchain_attestations_pk', ['order_id', 'attestor'])
      .execute()

    await db.schema
      .createTable('xchain_reservations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('held', 'spent', 'released')`))
      .addColumn('expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('xchain_reservations_held')
      .on('xchain_reservations')
      .columns(['state', 'network', 'token'])
      .execute()

    await db.schema
      .createTable('xchain_solver')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
