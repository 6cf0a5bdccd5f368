import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { BaseError } from '../../src/errors/index.js'
import type { Store } from '../store/store.js'

/** A session id lives this long; a request after ROTATE_AFTER_MS of its life gets a new one. */
export const SESSION_TTL_MS = 30 * 60_000
export const ROTATE_AFTER_MS = 5 * 60_000
/** However often it is rotated, a sign-in lasts at most this long. */
export const SESSION_MAX_MS = 8 * 3_600_000
/** An id just rotated away still answers this long, so requests already in flight do not fail. */
const ROTATION_GRACE_MS = 10_000

export type Session = { wallet: string; csrfToken: string; expiresAt: number; signedInAt: number }

const hash = (id: string) => createHash('sha256').update(id).digest('hex')
const newId = () => randomBytes(32).toString('base64url')

/**
 * Dashboard sessions, kept in the store (so every replica sees them) by the SHA-256 of the cookie
 * value. The CSRF token is per session and survives rotation; `created_at` is the sign-in time.
 */
export function sessionStore(store: Store, now: () => number = Date.now) {
  const { db } = store
  const unauthorized = (why: string) =>
    new BaseError('UNAUTHORIZED', `not signed in to the dashboard: ${why}; sign in with your wallet again`)
  return {
    async create(wallet: string): Promise<{ id: string; session: Session }> {
      const t = now()
      const id = newId()
      const session: Session = {
        wallet: wallet.toLowerCase(),
        csrfToken: randomBytes(24).toString('base64url'),
        expiresAt: t + SESSION_TTL_MS,
        signedInAt: t,
      }
      await db.deleteFrom('dashboard_sessions').where('expires_at', '<', t).execute()
      await db
        .insertInto('dashboard_sessions')
        .values({
          id_hash: hash(id),
          wallet: session.wallet,
          csrf_token: session.csrfToken,
          created_at: t,
          expires_at: session.expiresAt,
        })
        .execute()
      return { id, session }
    },

    /**
     * The session of a cookie value; with `csrf` (state-changing calls) the header must match.
     * Returns `rotatedId` when the caller must set a new cookie.
     */
    async resolve(
      id: string | undefined,
      check: { csrf?: string | null; mutating: boolean },
    ): Promise<{ session: Session; rotatedId?: string }> {
      if (!id) throw unauthorized('no session cookie')
      const t = now()
      const row = await db
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('id_hash', '=', hash(id))
        .executeTakeFirst()
      if (!row || Number(row.expires_at) <= t) throw unauthorized('the session has ended or was signed out')
      const session: Session = {
        wallet: row.wallet,
        csrfToken: row.csrf_token,
        expiresAt: Number(row.expires_at),
        signedInAt: Number(row.created_at),
      }
      if (check.mutating && !sameToken(check.csrf ?? '', row.csrf_token)) {
        throw new BaseError(
          'CSRF_REJECTED',
          'this change needs the x-csrf-token header of your session (reload the dashboard page)',
        )
      }
      const age = t - (Number(row.expires_at) - SESSION_TTL_MS)
      if (age < ROTATE_AFTER_MS) return { session }
      const hardEnd = session.signedInAt + SESSION_MAX_MS
      if (t >= hardEnd) throw unauthorized('the sign-in is older than 8 hours')
      const rotatedId = newId()
      session.expiresAt = Math.min(t + SESSION_TTL_MS, hardEnd)
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('dashboard_sessions')
          .values({
            id_hash: hash(rotatedId),
            wallet: row.wallet,
            csrf_token: row.csrf_token,
            created_at: row.created_at,
            expires_at: session.expiresAt,
          })
          .execute()
        await tx
          .updateTable('dashboard_sessions')
          .set({ expires_at: Math.min(Number(row.expires_at), t + ROTATION_GRACE_MS) })
          .where('id_hash', '=', row.id_hash)
          .execute()
      })
      return { session, rotatedId }
    },

    /** Ends every id of this sign-in (the current one and any rotated away). */
    async destroy(id: string): Promise<void> {
      const row = await db
        .selectFrom('dashboard_sessions')
        .select(['wallet', 'created_at'])
        .where('id_hash', '=', hash(id))
        .executeTakeFirst()
      if (!row) return
      await db
        .deleteFrom('dashboard_sessions')
        .where('wallet', '=', row.wallet)
        .where('created_at', '=', row.created_at)
        .execute()
    },
  }
}

export type SessionStore = ReturnType<typeof sessionStore>

function sameToken(a: string, b: string): boolean {
  const h = (x: string) => createHash('sha256').update(x).digest()
  return a.length > 0 && timingSafeEqual(h(a), h(b))
}
