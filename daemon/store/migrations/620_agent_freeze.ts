import type { StoreMigration } from './migration.js'

/**
 * An agent's freeze (620): when its owner stopped it spending (unix ms), null while it may spend.
 * Kept on the agent's row, which the spends ledger locks to reserve a spend, so the check and the
 * reservation are one step on every replica (daemon/buyer/freeze.ts).
 */
export const m620_agent_freeze: StoreMigration = {
  async up(db) {
    await db.schema.alterTable('platform_agents').addColumn('frozen_at', 'bigint').execute()
  },
}
