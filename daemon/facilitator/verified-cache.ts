import { createHash } from 'node:crypto'
import type { Payment } from '../../src/sdk/x402/wire.js'

/**
 * Payments that passed /verify in the last few seconds. Sellers verify before running the handler
 * and settle right after it, so settle can trust the chain's answer it just got instead of asking
 * again. Keyed by the exact payload and terms: any change to either is a different payment.
 */
export type VerifiedCache = { add(p: Payment): void; take(p: Payment): boolean }

export function verifiedCache(ttlMs = 30_000, max = 50_000): VerifiedCache {
  const seen = new Map<string, number>()
  const keyOf = (p: Payment) =>
    createHash('sha256')
      .update(JSON.stringify([p.version, p.scheme, p.network, p.payload, p.requirements]))
      .digest('base64')
  return {
    add(p: Payment) {
      if (seen.size >= max) seen.delete(seen.keys().next().value!)
      seen.set(keyOf(p), Date.now() + ttlMs)
    },
    /** True once per verification: a second settle of the same payment checks the chain again. */
    take(p: Payment): boolean {
      const k = keyOf(p)
      const until = seen.get(k)
      seen.delete(k)
      return until !== undefined && until > Date.now()
    },
  }
}
