import type { StoreMigration } from './migration.js'

/**
 * Budgets per window (630): an agent's hour, week and month limits beside its per-payment and day
 * ones (`daily_usd`, the day window), and the same five on the user, counted across all its
 * agents (daemon/buyer/budgets.ts). USD decimal strings; null: no limit of that kind. The
 * ledger's (agent_id, created_at) index (500) serves the sums of every window.
 */
export const m630_budget_windows: StoreMigration = {
  async up(db) {
    for (const c of ['hourly_usd', 'weekly_usd', 'monthly_usd'])
      await db.schema.alterTable('platform_agents').addColumn(c, 'text').execute()
    for (const c of ['per_payment_usd', 'hourly_usd', 'daily_usd', 'weekly_usd', 'monthly_usd'])
      await db.schema.alterTable('platform_users').addColumn(c, 'text').execute()
  },
}
