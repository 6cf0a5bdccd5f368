import type { StoreMigration } from './migration.js'

/**
 * Payee and network rules of agents and users, and a user's default for new agents (640; issue 41
 * item 2, daemon/buyer/policy/). The lists are one JSON column: they are read whole with the
 * owner and never queried by entry. Same table on SQLite and PostgreSQL.
 */
export const m640_payee_rules: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_payee_rules')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('rules', 'text', (c) => c.notNull())
      .addColumn('per_payment_usd', 'text')
      .addColumn('daily_usd', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('platform_payee_rules_pk', ['scope', 'owner_id'])
      .execute()
  },
}
