import type { Logger } from 'pino'
import type { ParxConfig } from '../../../src/config/schema.js'
import type { Store } from '../../store/store.js'
import { type RateLimiter, rateLimiter } from './rate-limit.js'
import { storeRateLimiter } from './rate-limit-store.js'

/**
 * The API's limiter as configured: in the shared store when it is PostgreSQL (replicas draw from
 * one bucket per caller), in memory on SQLite (one process). Loopback is exempt only where the
 * setting says so, by default on the local profile alone: hosted, a proxy on the same machine is
 * loopback, and exempting it would exempt everyone behind it.
 */
export function apiLimiter(
  config: Pick<ParxConfig, 'rateLimit' | 'profile' | 'store'>,
  store: Store,
  log: Pick<Logger, 'warn'>,
): RateLimiter {
  const opts = {
    perSecond: config.rateLimit.perSecond,
    burst: config.rateLimit.burst,
    exemptLoopback: exemptsLoopback(config),
  }
  if (store.dialect !== 'postgres') return rateLimiter(opts)
  return storeRateLimiter({
    ...opts,
    store,
    warn: (err) =>
      log.warn({ err }, 'rate limits: the store did not answer; this process limits on its own until it does'),
  })
}

export const exemptsLoopback = (config: Pick<ParxConfig, 'rateLimit' | 'profile'>): boolean =>
  config.rateLimit.exemptLoopback ?? config.profile === 'local'
