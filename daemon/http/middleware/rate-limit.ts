import { BaseError } from '../../../src/errors/index.js'

/**
 * Generic abuse protection: a token bucket per client address (SPEC §8: no per-key tiers).
 * Buckets refill continuously; idle ones are dropped so memory stays bounded.
 */
/** Port: a replica-safe limiter (shared buckets) implements the same `check`. */
export type RateLimiter = { check(address: string | undefined): void }

export function rateLimiter(opts: { perSecond: number; burst: number; exemptLoopback: boolean; now?: () => number }): RateLimiter {
  const now = opts.now ?? Date.now
  const buckets = new Map<string, { tokens: number; at: number }>()
  return {
    check(address: string | undefined): void {
      const ip = address ?? 'unknown'
      if (opts.exemptLoopback && isLoopback(ip)) return
      const t = now()
      const b = buckets.get(ip) ?? { tokens: opts.burst, at: t }
      b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.perSecond)
      b.at = t
      if (b.tokens < 1) {
        buckets.set(ip, b)
        throw new BaseError('RATE_LIMITED', `too many requests from ${ip}; slow down to ${opts.perSecond} per second and retry`)
      }
      b.tokens -= 1
      buckets.set(ip, b)
      if (buckets.size > 100_000) for (const [k, v] of buckets) if (t - v.at > 60_000) buckets.delete(k)
    },
  }
}

const isLoopback = (ip: string) => ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.')
