import type { StoreMigration } from './migration.js'

/**
 * Alerts (680, daemon/buyer/alerts/): a user's alert rules, the alerts they fired, and the
 * refusals the `refusals` rules count. `platform_alerts.dedupe_key` is unique: it names one
 * crossing (a rule, what it watches, and the spend or refusal that crossed), so two replicas or a
 * retried evaluation that see the same crossing insert one row, and fire one webhook.
 */
export const m680_alerts: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('platform_alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('params', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_alert_rules_user')
      .on('platform_alert_rules')
      .columns(['user_id', 'created_at'])
      .execute()
    await db.schema
      .createTable('platform_alerts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('figures', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_alerts_user')
      .on('platform_alerts')
      .columns(['user_id', 'created_at'])
      .execute()
    await db.schema
      .createTable('platform_alert_refusals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_alert_refusals_agent')
      .on('platform_alert_refusals')
      .columns(['agent_id', 'created_at'])
      .execute()
  },
}
