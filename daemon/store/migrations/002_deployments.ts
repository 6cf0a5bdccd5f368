import type { StoreMigration } from './migration.js'

/** What the daemon deployed or created on each embedded chain, so a restart reuses it. */
export const m002_deployments: StoreMigration = {
  async up(db) {
    await db.schema
      .createTable('deployments')
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('deployments_pk', ['network', 'name'])
      .execute()
  },
}
