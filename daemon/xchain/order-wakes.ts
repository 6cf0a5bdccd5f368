import { sql } from 'kysely'
import { pgListener } from '../store/pg-listener.js'
import type { Store } from '../store/store.js'

/** The PostgreSQL channel replicas announce new and relayed cross-chain orders on (payload: the order id). */
export const ORDER_WAKES_CHANNEL = 'parx_xchain_orders'

/**
 * Wakes the solver worker when an order is built or its lock relayed, so an idle worker reads
 * nothing until there is something to move (it still sweeps the store now and then: see
 * SolverWorkerDeps.idleSweepMs). On one process the wake is a function call; with replicas
 * sharing a PostgreSQL store the order may be built on one that does not lead, so each wake is
 * also announced with NOTIFY and every replica LISTENs (only the leader's worker acts on it).
 */
export type OrderWakes = {
  /** Wakes this process's worker and, on PostgreSQL, every replica's. Never throws. */
  publish(orderId: string): void
  stop(): Promise<void>
}

/** `wake`: the worker's (SolverWorker.wake), given the order's id so it steps that order now. */
export function processOrderWakes(wake: (orderId: string) => void): OrderWakes {
  return { publish: (orderId) => wake(orderId), stop: async () => {} }
}

export type PostgresOrderWakesParameters = {
  url: string
  store: Store
  /** With the announced order's id; without one (the listener just connected) every open order is looked at. */
  wake(orderId?: string): void
  onError?(e: Error): void
  retryMs?: number
}

export function postgresOrderWakes(p: PostgresOrderWakesParameters): OrderWakes {
  const listener = pgListener({
    url: p.url,
    channel: ORDER_WAKES_CHANNEL,
    onError: p.onError,
    retryMs: p.retryMs,
    onNotify: (orderId) => p.wake(orderId || undefined),
    // Announcements made while we were not listening are lost: look at the store once.
    onListening: () => p.wake(),
  })
  return {
    publish(orderId) {
      p.wake(orderId)
      // A lost announcement only delays the other replicas' worker to its next sweep.
      sql`SELECT pg_notify(${ORDER_WAKES_CHANNEL}, ${orderId})`
        .execute(p.store.db)
        .catch((e: unknown) => p.onError?.(e as Error))
    },
    stop: () => listener.stop(),
  }
}
