import { sql } from 'kysely'
import type { Logger } from 'pino'
import { Gauge, type Registry } from 'prom-client'
import type { Store } from '../store/store.js'

/**
 * Gauges read from the store when Prometheus scrapes, never by polling: outbox rows by state,
 * the webhook queue's depth and oldest age, cross-chain orders by stage. Each is one grouped query
 * (the outbox and orders by indexed columns); a store that cannot answer leaves the family empty
 * for that scrape, rather than failing the whole scrape.
 */
export function storeGauges(
  registry: Registry,
  store: Store,
  log: Pick<Logger, 'warn'>,
  now: () => number = Date.now,
): void {
  const guarded = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn()
    } catch (err) {
      log.warn({ err }, `metrics: could not read ${what} from the store for this scrape`)
    }
  }
  /** Rows of `table` counted by `column`; `always` are reported as 0 when none (a PromQL alert needs the series). */
  const countedBy = (
    name: string,
    help: string,
    what: string,
    table: 'tx_outbox' | 'xchain_orders',
    column: 'state' | 'stage',
    always: readonly string[] = [],
  ) =>
    new Gauge({
      name,
      help,
      labelNames: [column] as const,
      registers: [registry],
      async collect() {
        this.reset()
        await guarded(what, async () => {
          const label = sql.ref(column)
          const { rows } = await sql<{ label_value: string; n: number | string }>`select ${label} as label_value,
            count(*) as n from ${sql.table(table)} group by ${label}`.execute(store.db)
          for (const key of always) this.set({ [column]: key }, 0)
          for (const r of rows) this.set({ [column]: r.label_value }, Number(r.n))
        })
      },
    })
  countedBy(
    'parx_outbox_rows',
    'Signed EVM transactions in the outbox by state (sent: broadcast, not yet decided)',
    'the outbox',
    'tx_outbox',
    'state',
    ['sent', 'included', 'failed'],
  )
  // Depth and age come from one query, shared by the two gauges of one scrape (both ask at once).
  let queue: Promise<{ n: number; oldest: number | null }> | undefined
  const readQueue = () =>
    (queue ??= store.db
      .selectFrom('platform_webhook_deliveries')
      .where('delivered_at', 'is', null)
      .where('gave_up_at', 'is', null)
      .select([(e) => e.fn.countAll<number | string>().as('n'), (e) => e.fn.min('created_at').as('oldest')])
      .executeTakeFirst()
      .then((r) => ({ n: Number(r?.n ?? 0), oldest: r?.oldest == null ? null : Number(r.oldest) }))
      .finally(() => (queue = undefined)))
  new Gauge({
    name: 'parx_webhook_queue_depth',
    help: 'Settlement webhook deliveries waiting (neither delivered nor given up)',
    registers: [registry],
    async collect() {
      await guarded('the webhook queue', async () => this.set((await readQueue()).n))
    },
  })
  new Gauge({
    name: 'parx_webhook_queue_oldest_age_seconds',
    help: 'Age of the oldest settlement webhook delivery still waiting (0 when none waits)',
    registers: [registry],
    async collect() {
      await guarded('the webhook queue', async () => {
        const { n, oldest } = await readQueue()
        this.set(n > 0 && oldest !== null ? Math.max(0, (now() - oldest) / 1000) : 0)
      })
    },
  })
  countedBy(
    'parx_xchain_orders',
    'Cross-chain orders by stage (daemon/xchain/stages.ts)',
    'the cross-chain orders',
    'xchain_orders',
    'stage',
  )
}
