import type { StoreMigration } from './migration.js'

/** The next nonce of each relayer key per chain, shared by the processes on one store (hosted mode). */
export const m003_relayer_nonces: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('relayer_nonces')
      .addColumn('chain_id', 'bigint', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('next_nonce', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('relayer_nonces_pk', ['chain_id', 'address'])
      .execute()
  },
}
