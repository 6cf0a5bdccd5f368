import { sql } from 'kysely'
import type { StoreMigration } from './migration.js'

/**
 * The agent payments platform: users and their keys, agents with sealed wallets and their keys, limits, the spends
 * ledger.
 */
export const m500_platform: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('wallet', 'text', (c) => c.unique())
      .addColumn('name', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('platform_user_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('platform_users.id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('hint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute()
    await db.schema
      .createTable('platform_agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('platform_users.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull().unique())
      .addColumn('wallet_sealed', 'text', (c) => c.notNull())
      .addColumn('per_payment_usd', 'text')
      .addColumn('daily_usd', 'text')
      .addColumn('allowed_hosts', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('platform_agents_user').on('platform_agents').column('user_id').execute()
    await db.schema
      .createTable('platform_agent_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull().references('platform_agents.id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('hint', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute()
    await db.schema.createIndex('platform_agent_keys_agent').on('platform_agent_keys').column('agent_id').execute()
    await db.schema
      .createTable('platform_spends')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull().references('platform_agents.id'))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('send', 'swap', 'pay')`))
      .addColumn('amount_micros', 'bigint', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text')
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('reserved', 'confirmed', 'released')`))
      .addColumn('tx', 'text')
      .addColumn('user_op', 'text')
      .addColumn('reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_spends_agent_time')
      .on('platform_spends')
      .columns(['agent_id', 'created_at'])
      .execute()
  },
}
