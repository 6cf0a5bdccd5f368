import { sql } from 'kysely'
import type { Store } from '../../store/store.js'
import { isLoopback } from '../client-address.js'
import { type RateLimiter, type RateLimitParameters, rateLimited, rateLimiter } from './rate-limit.js'

/** The tables of token buckets: the API's (005) and the dashboard sign-in's (610). */
export type BucketTable = 'rate_limit_buckets' | 'dashboard_login_buckets'

/** How often a process deletes buckets idle long enough to be full again (they mean the same as no row). */
const SWEEP_EVERY_MS = 60_000

/**
 * The same token buckets as `rateLimiter`, kept in the shared PostgreSQL store
 * (`rate_limit_buckets`, migration 005) so every replica draws from one bucket per caller: N
 * replicas allow the limit once, not N times. One statement per request, an upsert that refills
 * and takes a token under the row's lock, timed by the database's clock so replicas whose clocks
 * differ still agree. Rows idle for burst/perSecond seconds are full and are swept. When the store
 * does not answer, this process's own buckets decide meanwhile (a warning is logged once per outage).
 */
export function storeRateLimiter(
  p: Omit<RateLimitParameters, 'now' | 'maxBuckets'> & {
    store: Store
    warn?: (err: Error) => void
    table?: BucketTable
  },
): RateLimiter {
  const { db } = p.store
  // One table per limiter whose rates differ: each sweeps rows by its own refill time.
  const table = sql.table(p.table ?? 'rate_limit_buckets')
  const fallback = rateLimiter({ ...p, exemptLoopback: false })
  const fullAfterMs = (p.burst / p.perSecond) * 1000
  let lastSweep = 0
  let failing = false
  const now = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::double precision`
  const refilled = sql<number>`least(
    ${p.burst}::double precision,
    b.tokens + greatest(0, ${now} - b.at) / 1000.0 * ${p.perSecond}::double precision
  )`
  const sweep = () => {
    lastSweep = Date.now()
    sql`delete from ${table} where at < ${now} - ${fullAfterMs}::double precision`.execute(db).catch(() => {})
  }
  return {
    async check(address, identity) {
      if (p.exemptLoopback && isLoopback(address)) return
      const key = identity ?? address ?? 'unknown'
      let allowed: boolean
      try {
        const r = await sql<{ allowed: number }>`
          insert into ${table} as b (key, tokens, at, allowed)
          values (${key}, ${p.burst - 1}::double precision, ${now}, 1)
          on conflict (key) do update set
            tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
            allowed = case when ${refilled} >= 1 then 1 else 0 end,
            at = greatest(b.at, ${now})
          returning allowed`.execute(db)
        allowed = Number(r.rows[0]!.allowed) === 1
        failing = false
      } catch (err) {
        if (!failing) p.warn?.(err as Error)
        failing = true
        return fallback.check(address, identity)
      }
      if (Date.now() - lastSweep > SWEEP_EVERY_MS) sweep()
      if (!allowed) throw rateLimited(key, p.perSecond)
    },
  }
}
