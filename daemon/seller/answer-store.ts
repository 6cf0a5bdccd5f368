import type { AnswerBounds, AnswerStore, KeptAnswer } from '../../src/sdk/x402/seller/answers/store.js'
import type { Store } from '../store/store.js'

/**
 * The bounds of the daemon's answers (docs/platform-api.md "Retries"): kept 10 minutes, at most
 * 10,000 answers and 256 MiB in all; one answer is at most what a paid endpoint relays (10 MiB
 * body, daemon/seller/paid.ts) plus its headers.
 */
export const STORE_ANSWER_BOUNDS: AnswerBounds = {
  windowMs: 10 * 60_000,
  maxEntries: 10_000,
  maxBytes: 256 * 1024 * 1024,
  maxAnswerBytes: 14 * 1024 * 1024 + 64 * 1024,
}

/** How often one process prunes the table (expired rows, then the oldest past the bounds). */
const PRUNE_EVERY_MS = 30_000

/**
 * The seller gate's AnswerStore in the daemon's store (x402_seller_answers, SQLite or PostgreSQL),
 * shared by every replica: claim is an insert that only one request wins, then guarded updates
 * (the holder's owner id), so two replicas given the same payment never both serve it.
 */
export function sellerAnswerStore(store: Store, bounds: AnswerBounds = STORE_ANSWER_BOUNDS): AnswerStore {
  const { db } = store
  const t = 'x402_seller_answers' as const
  let prunedAt = 0
  const prune = async (now: number) => {
    if (now - prunedAt < PRUNE_EVERY_MS) return
    prunedAt = now
    await db.deleteFrom(t).where('expires_at', '<=', now).where('lease_until', '<=', now).execute()
    // Newest first: what is past maxEntries or maxBytes goes, oldest first; claims being served stay.
    const kept = await db
      .selectFrom(t)
      .select(['key', 'bytes'])
      .where('status', 'is not', null)
      .orderBy('kept_at', 'desc')
      .execute()
    let bytes = 0
    const over = kept
      .filter((r, i) => (bytes += Number(r.bytes)) > bounds.maxBytes || i >= bounds.maxEntries)
      .map((r) => r.key)
    for (let i = 0; i < over.length; i += 500)
      await db
        .deleteFrom(t)
        .where('key', 'in', over.slice(i, i + 500))
        .execute()
  }
  return {
    async claim(p) {
      const inserted = await db
        .insertInto(t)
        .values({
          key: p.key,
          fingerprint: p.fingerprint,
          owner: p.owner,
          lease_until: p.leaseUntil,
          expires_at: p.expiresAt,
          bytes: 0,
        })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return { kind: 'run' }
      const cur = await db.selectFrom(t).selectAll().where('key', '=', p.key).executeTakeFirst()
      // Released meanwhile: try again at once.
      if (!cur) return { kind: 'busy' }
      const answered = cur.status !== null
      const free = answered ? Number(cur.expires_at) <= p.now : Number(cur.lease_until) <= p.now
      if (!free || (!answered && cur.fingerprint !== p.fingerprint)) {
        if (cur.fingerprint !== p.fingerprint) return { kind: 'mismatch' }
        if (!answered) return { kind: 'busy' }
        return {
          kind: 'answer',
          answer: {
            status: Number(cur.status),
            headers: JSON.parse(cur.headers ?? '{}') as KeptAnswer['headers'],
            body: cur.body ?? '',
          },
        }
      }
      // An expired answer, or a holder whose lease ended (its process stopped): taken over by this request, if nobody
      // was quicker.
      const taken = await db
        .updateTable(t)
        .set({
          fingerprint: p.fingerprint,
          owner: p.owner,
          lease_until: p.leaseUntil,
          expires_at: p.expiresAt,
          status: null,
          headers: null,
          body: null,
          bytes: 0,
          kept_at: null,
        })
        .where('key', '=', p.key)
        .where('owner', '=', cur.owner)
        .executeTakeFirst()
      return Number(taken.numUpdatedRows) > 0 ? { kind: 'run' } : { kind: 'busy' }
    },
    async keep(p) {
      const u = await db
        .updateTable(t)
        .set({
          status: p.answer.status,
          headers: JSON.stringify(p.answer.headers),
          body: p.answer.body,
          bytes: p.bytes,
          kept_at: p.now,
          expires_at: p.now + bounds.windowMs,
        })
        .where('key', '=', p.key)
        .where('owner', '=', p.owner)
        .executeTakeFirst()
      await prune(p.now).catch(() => {})
      return Number(u.numUpdatedRows) > 0
    },
    async release(key, owner) {
      await db.deleteFrom(t).where('key', '=', key).where('owner', '=', owner).where('status', 'is', null).execute()
    },
  }
}
