import { Gauge, type Registry } from 'prom-client'
import type { Store } from '../store/store.js'

/**
 * `parx_worker_leader`: 1 while this process leads the worker duties (reconciliation, the
 * cross-chain solver), else 0: an api process, a standby worker. Read when scraped.
 */
export function leadershipGauge(registry: Registry, leading: () => boolean): void {
  new Gauge({
    name: 'parx_worker_leader',
    help: 'Whether this process leads the worker duties (1) or not (0)',
    registers: [registry],
    collect() {
      this.set(leading() ? 1 : 0)
    },
  })
}

/**
 * `parx_store_pool_connections{dialect,state}`: on PostgreSQL the pool's total, idle and waiting
 * (requests queued for a connection: the saturation signal). SQLite is one connection in this
 * process, reported as total 1; its queue is not visible.
 */
export function storePoolGauge(registry: Registry, store: Pick<Store, 'dialect' | 'poolUsage'>): void {
  new Gauge({
    name: 'parx_store_pool_connections',
    help: 'Store connections by state: total, idle, and waiting (requests queued for one; PostgreSQL only)',
    labelNames: ['dialect', 'state'] as const,
    registers: [registry],
    collect() {
      const dialect = store.dialect
      const u = store.poolUsage?.()
      if (!u) return void this.set({ dialect, state: 'total' }, 1)
      this.set({ dialect, state: 'total' }, u.total)
      this.set({ dialect, state: 'idle' }, u.idle)
      this.set({ dialect, state: 'waiting' }, u.waiting)
    },
  })
}
