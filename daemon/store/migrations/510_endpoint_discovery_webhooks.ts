import type { StoreMigration } from './migration.js'

/**
 * Seller endpoints opt in to the bazaar listing and to a signed settlement webhook (issue 15,
 * items 5 and 6); webhook deliveries are a persisted queue, so a restart never loses one.
 * `discoverable` is an integer 0/1 on both dialects (one migration, one query shape).
 */
export const m510_endpoint_discovery_webhooks: StoreMigration = {
  async up(db) {
    const t = () => db.schema.alterTable('platform_endpoints')
    await t()
      .addColumn('discoverable', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await t().addColumn('description', 'text').execute()
    await t().addColumn('webhook_url', 'text').execute()
    await t().addColumn('webhook_secret', 'text').execute()
    await t().addColumn('updated_at', 'bigint').execute()
    await db.schema
      .createIndex('platform_endpoints_discoverable')
      .on('platform_endpoints')
      .columns(['discoverable', 'created_at'])
      .execute()

    await db.schema
      .createTable('platform_webhook_deliveries')
      // The event id the receiver dedupes on (webhook-id): one per settlement outcome.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      // What the outcome is about (network:transaction, or the payment's key when nothing was sent): at most one event
      // per outcome.
      .addColumn('event_key', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addColumn('gave_up_at', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('platform_webhook_deliveries_due')
      .on('platform_webhook_deliveries')
      .columns(['delivered_at', 'gave_up_at', 'next_attempt_at'])
      .execute()
  },
}
