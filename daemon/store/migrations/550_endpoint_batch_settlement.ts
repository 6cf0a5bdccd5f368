import type { StoreMigration } from './migration.js'

/**
 * Seller endpoints may offer x402 batch-settlement beside exact (issue 27, item 4): an integer
 * 0/1 on both dialects, as `discoverable`. Their channels live in x402_seller_channels (220),
 * tagged with the endpoint id.
 */
export const m550_endpoint_batch_settlement: StoreMigration = {
  async up(db) {
    await db.schema
      .alterTable('platform_endpoints')
      .addColumn('batch_settlement', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
  },
}
