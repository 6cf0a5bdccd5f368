import type { Logger } from 'pino'
import { type RateLimiter, rateLimiter } from '../http/middleware/rate-limit.js'
import { storeRateLimiter } from '../http/middleware/rate-limit-store.js'
import type { Store } from '../store/store.js'

/**
 * Sign-in messages and attempts per client network: a burst of 30, then one every 2 s. Not exempt
 * on loopback: sign-in is what a script would hammer.
 */
export const LOGIN_RATE = { perSecond: 0.5, burst: 30 } as const

/**
 * The dashboard's sign-in limiter: in the shared store when replicas share PostgreSQL
 * (`dashboard_login_buckets`, migration 610), so N replicas behind a balancer allow the budget once,
 * not N times; in memory on SQLite (one process). Callers key it by `addressBucket`
 * (daemon/http/address-bucket.ts): IPv6 by its /64.
 */
export function loginLimiter(store: Store, log: Pick<Logger, 'warn'>): RateLimiter {
  const opts = { ...LOGIN_RATE, exemptLoopback: false }
  if (store.dialect !== 'postgres') return rateLimiter(opts)
  return storeRateLimiter({
    ...opts,
    store,
    table: 'dashboard_login_buckets',
    warn: (err) =>
      log.warn({ err }, 'sign-in limits: the store did not answer; this process limits on its own until it does'),
  })
}
