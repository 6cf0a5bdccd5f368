import { createHash, randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { type AnswerBounds, type AnswerStore, DEFAULT_ANSWER_BOUNDS, type KeptAnswer } from './store.js'

/**
 * How long a request holds a payment id while it is served (verify, the handler, settle), and so
 * how long a repeat waits for it at most: past it the holder is taken for dead (a process stopped
 * mid-request) and the repeat serves the payment itself. Longer than an upstream (20 s) plus a
 * settle waiting for its receipt (about 35 s).
 */
export const ANSWER_LEASE_MS = 90_000

/**
 * What one request with a payment id does: replay an answer, refuse another payload, or serve it and then keep or
 * release it.
 */
export type Once =
  | { kind: 'answer'; answer: KeptAnswer }
  | { kind: 'mismatch' }
  | { kind: 'run'; keep(answer: KeptAnswer): Promise<void>; release(): Promise<void> }

/**
 * Takes a payment id for one request. A repeat of a payment being served now waits for that
 * request's answer (polling the store, which replicas share) instead of meeting a settlement in
 * progress; the one it waited for failing (nothing charged) lets it serve the payment itself.
 */
export async function onceById(
  store: AnswerStore,
  p: { key: string; fingerprint: string; bounds?: Partial<AnswerBounds>; leaseMs?: number },
): Promise<Once> {
  const b = { ...DEFAULT_ANSWER_BOUNDS, ...p.bounds }
  const owner = randomUUID()
  const leaseMs = p.leaseMs ?? ANSWER_LEASE_MS
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    const now = Date.now()
    const c = await store.claim({
      key: p.key,
      fingerprint: p.fingerprint,
      owner,
      now,
      leaseUntil: now + leaseMs,
      expiresAt: now + b.windowMs,
    })
    if (c.kind === 'answer' || c.kind === 'mismatch') return c
    if (c.kind === 'run') {
      return {
        kind: 'run',
        async keep(answer) {
          const bytes = keptBytes(answer)
          // Too large to keep: the id is freed, and a repeat is served anew (the facilitator still never charges
          // twice).
          if (bytes > b.maxAnswerBytes) return store.release(p.key, owner)
          await store.keep({ key: p.key, owner, answer, bytes, now: Date.now() })
        },
        release: () => store.release(p.key, owner),
      }
    }
    await new Promise((r) => setTimeout(r, pause))
  }
}

const keptBytes = (a: KeptAnswer) => a.body.length + JSON.stringify(a.headers).length

/** Sends a kept answer as it was first sent. */
export function replay(res: ServerResponse, a: KeptAnswer): void {
  res.statusCode = a.status
  for (const [k, v] of Object.entries(a.headers)) res.setHeader(k, v)
  res.end(Buffer.from(a.body, 'base64'))
}

/**
 * An answer to keep, from what was sent: per-connection headers left out (a replay goes out on
 * another connection), and the request's own id and date, which the repeat has its own of.
 */
export function keptAnswer(a: {
  status: number
  headers: Record<string, string | string[]>
  body: Buffer
}): KeptAnswer {
  const {
    connection: _c,
    'keep-alive': _k,
    'content-length': _l,
    'transfer-encoding': _t,
    'x-request-id': _r,
    date: _d,
    ...headers
  } = a.headers
  return { status: a.status, headers, body: a.body.toString('base64') }
}

/** sha256 of parts, as the store's key or a payment's fingerprint. */
export const digest = (...parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex')
