import { sql } from 'kysely'
import type { StoreMigration } from './migration.js'

/**
 * The transaction outbox: every EVM transaction the service signs, recorded with its signed bytes
 * before it is broadcast, so one the chain lost (a crash that rolled an embedded chain back, a
 * reorg) is broadcast again as it was, or decided failed.
 */
export const m004_tx_outbox: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('tx_outbox')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('chain_id', 'bigint', (c) => c.notNull())
      .addColumn('sender', 'text', (c) => c.notNull())
      .addColumn('nonce', 'bigint', (c) => c.notNull())
      .addColumn('raw', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('refs', 'text')
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('sent', 'included', 'failed')`))
      .addColumn('reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('tx_outbox_unconfirmed')
      .on('tx_outbox')
      .columns(['network', 'sender', 'nonce'])
      .where(sql<boolean>`state = 'sent'`)
      .execute()
  },
}
