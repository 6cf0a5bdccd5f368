import { BaseError } from '../../../src/errors/index.js'
import { isLoopback } from '../client-address.js'

/**
 * Generic abuse protection: a token bucket per caller (docs/hosting.md "Quotas and rate limits per tenant": no per-key
 * tiers). The bucket is
 * the caller's identity when it has one (`user:<id>`, `agent:<id>`, `partner:<key hash>`,
 * `wallet:<address>`: daemon/http/middleware/limit-key.ts), else its address. Buckets refill
 * continuously; one idle for burst/perSecond seconds is full, the same as absent.
 */
export type RateLimiter = {
  /**
   * Takes a token from the bucket of `identity`, or of `address` without one; throws
   * RATE_LIMITED when it is empty. `exemptLoopback` looks at the address whatever the bucket.
   */
  check(address: string | undefined, identity?: string): void | Promise<void>
}

export type RateLimitParameters = {
  perSecond: number
  burst: number
  exemptLoopback: boolean
  now?: () => number
  /** Buckets kept at most; past it the least recently used goes (default 100,000). */
  maxBuckets?: number
}

/** This process's buckets, in memory (one process on SQLite). */
export function rateLimiter(opts: RateLimitParameters): RateLimiter {
  const now = opts.now ?? Date.now
  const max = opts.maxBuckets ?? 100_000
  // A Map iterates in insertion order: re-inserting on every use keeps it least-recently-used
  // first, so the bucket to drop is always the first one (no scan of the whole map).
  const buckets = new Map<string, { tokens: number; at: number }>()
  return {
    check(address, identity) {
      if (opts.exemptLoopback && isLoopback(address)) return
      const key = identity ?? address ?? 'unknown'
      const t = now()
      const b = buckets.get(key) ?? { tokens: opts.burst, at: t }
      buckets.delete(key)
      b.tokens = Math.min(opts.burst, b.tokens + (Math.max(0, t - b.at) / 1000) * opts.perSecond)
      b.at = t
      const allowed = b.tokens >= 1
      if (allowed) b.tokens -= 1
      buckets.set(key, b)
      if (buckets.size > max) buckets.delete(buckets.keys().next().value!)
      if (!allowed) throw rateLimited(key, opts.perSecond)
    },
  }
}

export function rateLimited(key: string, perSecond: number): BaseError {
  const who = key.includes(':') && !/^[0-9a-f:.]+$/i.test(key) ? key.slice(0, key.indexOf(':')) : key
  return new BaseError(
    'RATE_LIMITED',
    `too many requests from this ${who === key ? `client (${key})` : who}; ` +
      `slow down to ${perSecond} per second and retry`,
  )
}
