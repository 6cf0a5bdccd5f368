import type { StoreMigration } from './migration.js'

/** Base swap orders being relayed, shared by api replicas: one row per (chain, user, nonce). */
export const m100_swap_claims: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('swap_claims')
      .addColumn('chain_id', 'bigint', (c) => c.notNull())
      .addColumn('user_address', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('claim_id', 'text', (c) => c.notNull())
      .addColumn('hash', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('swap_claims_pk', ['chain_id', 'user_address', 'nonce'])
      .execute()
    await db.schema.createIndex('swap_claims_created').on('swap_claims').column('created_at').execute()
  },
}
