import { BaseError } from '../../src/errors/index.js'
import { hashKey } from './partner-keys.js'

/**
 * Key verdicts as docs/swap-api.md "Authentication" describes their propagation: a new key is honoured within
 * `unknownTtlMs`
 * (a "no" is cached at most that long), a deactivated or deleted key stops within `knownTtlMs`, and
 * when the key store cannot be read the last verdict is honoured for up to `staleTtlMs`.
 * Changes made through this daemon are applied at once with `forget`.
 */
export type VerdictCacheOptions = {
  lookup: (key: string) => Promise<{ state: string } | undefined>
  now?: () => number
  unknownTtlMs?: number
  knownTtlMs?: number
  staleTtlMs?: number
}

type Verdict = { valid: boolean; at: number }

/**
 * Hosted (replicas on PostgreSQL): a change made through one replica reaches the others only when
 * they read the key again, so every verdict is re-read after 5 s (one indexed lookup per key per
 * replica every 5 s): a key deactivated or created through any replica is honoured or refused by
 * every replica within 5 s, well inside the 30 s and 5 min of docs/swap-api.md "Authentication".
 */
export const HOSTED_VERDICT_TTLS = { unknownTtlMs: 5_000, knownTtlMs: 5_000 } as const

export function verdictCache(opts: VerdictCacheOptions) {
  const now = opts.now ?? Date.now
  const unknownTtl = opts.unknownTtlMs ?? 30_000
  const knownTtl = opts.knownTtlMs ?? 300_000
  const staleTtl = opts.staleTtlMs ?? 3_600_000
  // Keyed by the key's hash, so no secret sits in memory longer than a request.
  const cache = new Map<string, Verdict>()

  return {
    async isValid(key: string): Promise<boolean> {
      const hash = hashKey(key)
      const cached = cache.get(hash)
      const t = now()
      if (cached && t - cached.at < (cached.valid ? knownTtl : unknownTtl)) return cached.valid
      let record
      try {
        record = await opts.lookup(key)
      } catch (cause) {
        if (cached && t - cached.at < staleTtl) return cached.valid
        throw new BaseError('KEY_STORE_UNAVAILABLE', 'the key store cannot be read right now; retry shortly', { cause })
      }
      const valid = record?.state === 'active'
      cache.set(hash, { valid, at: t })
      if (cache.size > 50_000) cache.delete(cache.keys().next().value!)
      return valid
    },
    /** Drops the verdict for a key hash (after a change made through this daemon). */
    forget(keyHash: string) {
      cache.delete(keyHash)
    },
    /** Drops every verdict (after missing announcements of changes made by other replicas). */
    clear() {
      cache.clear()
    },
  }
}

export type VerdictCache = ReturnType<typeof verdictCache>
