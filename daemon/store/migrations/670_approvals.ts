import type { StoreMigration } from './migration.js'

/**
 * Approval above a threshold (670): the agent's `approve_above_usd` (USD decimal string, null: no
 * approval asked) and the held requests (daemon/buyer/approvals/). Indexed by user for
 * `parx approvals`, by agent for the agent's own pending list.
 */
export const m670_approvals: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('platform_agents').addColumn('approve_above_usd', 'text').execute()
    await db.schema
      .createTable('platform_approvals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('method', 'text')
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('amount_micros', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_at', 'bigint')
      .addColumn('consumed_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('platform_approvals_user')
      .on('platform_approvals')
      .columns(['user_id', 'created_at'])
      .execute()
    await db.schema
      .createIndex('platform_approvals_agent')
      .on('platform_approvals')
      .columns(['agent_id', 'created_at'])
      .execute()
  },
}
