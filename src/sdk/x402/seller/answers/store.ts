/**
 * A paid answer as the buyer first got it: status, headers (PAYMENT-RESPONSE among them) and
 * body, base64. What the gate replays to a repeat of the same payment (./gate.ts).
 */
export type KeptAnswer = { status: number; headers: Record<string, string | string[]>; body: string }

/**
 * What a payment id is to a request that brings it: `run` (this request serves it; it holds the id
 * until `leaseUntil` and then keeps or releases it), `answer` (served already: replay it), `busy`
 * (another request is serving it now), `mismatch` (the id is bound to another payload).
 */
export type AnswerClaim =
  | { kind: 'run' }
  | { kind: 'answer'; answer: KeptAnswer }
  | { kind: 'busy' }
  | { kind: 'mismatch' }

export type ClaimParams = {
  key: string
  fingerprint: string
  owner: string
  now: number
  leaseUntil: number
  expiresAt: number
}

/**
 * Answers of paid requests by payment id, shared by every process that serves the same sellers
 * (the daemon's SQLite / PostgreSQL `x402_seller_answers`, daemon/seller/answer-store.ts; by
 * default this process's memory). Each call is atomic on its own: of two requests claiming one
 * free id, one runs and the other is busy until the first keeps or releases it, or its lease ends
 * (a process that died mid-request). A kept answer lives until `expiresAt`; after that the id is free.
 */
export interface AnswerStore {
  claim(p: ClaimParams): Promise<AnswerClaim>
  /**
   * Stores the answer of `owner`'s claim; false when the claim was lost meanwhile (its lease ended and another took
   * it).
   */
  keep(p: { key: string; owner: string; answer: KeptAnswer; bytes: number; now: number }): Promise<boolean>
  /** Frees `owner`'s claim (nothing was charged: a refused payment, a failed handler); a retry runs anew. */
  release(key: string, owner: string): Promise<void>
}

/** How long a served answer is kept, and the bounds on what a store holds (docs/platform-api.md "Retries"). */
export type AnswerBounds = { windowMs: number; maxEntries: number; maxBytes: number; maxAnswerBytes: number }

export const DEFAULT_ANSWER_BOUNDS: AnswerBounds = {
  windowMs: 10 * 60_000,
  maxEntries: 1_000,
  maxBytes: 64 * 1024 * 1024,
  maxAnswerBytes: 10 * 1024 * 1024,
}

type Entry = {
  fingerprint: string
  owner: string
  leaseUntil: number
  expiresAt: number
  answer?: KeptAnswer
  bytes: number
}

/**
 * The answers of one process (paymentGate's default): enough for a single seller process. Kept
 * answers past `maxEntries` or `maxBytes` go oldest first; claims being served are never evicted
 * (their number is bounded by the requests in flight).
 */
export function memoryAnswerStore(bounds: Partial<AnswerBounds> = {}): AnswerStore {
  const b = { ...DEFAULT_ANSWER_BOUNDS, ...bounds }
  const rows = new Map<string, Entry>()
  let bytes = 0
  const drop = (key: string) => {
    const e = rows.get(key)
    if (!e) return
    bytes -= e.bytes
    rows.delete(key)
  }
  const prune = (now: number) => {
    for (const [key, e] of rows) {
      if (rows.size <= b.maxEntries && bytes <= b.maxBytes && e.expiresAt > now) break
      if (e.answer || e.leaseUntil <= now) drop(key)
    }
  }
  return {
    async claim(p) {
      const cur = rows.get(p.key)
      const free = !cur || (cur.answer ? cur.expiresAt <= p.now : cur.leaseUntil <= p.now)
      if (cur && !free) {
        if (cur.fingerprint !== p.fingerprint) return { kind: 'mismatch' }
        return cur.answer ? { kind: 'answer', answer: cur.answer } : { kind: 'busy' }
      }
      // A lease that ended is taken over only by the same payment: another payload stays refused.
      if (cur && !cur.answer && cur.fingerprint !== p.fingerprint) return { kind: 'mismatch' }
      drop(p.key)
      rows.set(p.key, {
        fingerprint: p.fingerprint,
        owner: p.owner,
        leaseUntil: p.leaseUntil,
        expiresAt: p.expiresAt,
        bytes: 0,
      })
      prune(p.now)
      return { kind: 'run' }
    },
    async keep(p) {
      const cur = rows.get(p.key)
      if (!cur || cur.owner !== p.owner) return false
      // Re-inserted, so insertion order is the order answers were kept in (eviction goes oldest first).
      rows.delete(p.key)
      rows.set(p.key, { ...cur, answer: p.answer, bytes: p.bytes, expiresAt: p.now + b.windowMs })
      bytes += p.bytes
      prune(p.now)
      return true
    },
    async release(key, owner) {
      if (rows.get(key)?.owner === owner) drop(key)
    },
  }
}
