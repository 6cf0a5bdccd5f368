import type { Context } from 'hono'
import { CSRF_HEADER } from '../../src/sdk/dashboard/index.js'
import { sessionCookie, setSessionCookie } from './cookie.js'
import type { DashboardOrigin } from './origin.js'
import type { Session, SessionStore } from './sessions.js'

/**
 * The `session` auth of a route (daemon/http/route.ts): the dashboard cookie must name a live
 * session, and a POST or DELETE must come from the dashboard's own origin (a browser sends the
 * cookie with another site's requests too) and carry that session's CSRF token in x-csrf-token.
 * A session due for rotation gets a new cookie on this answer. `refuseCrossSite` is the origin
 * check alone, for the routes that start a session (`sameOrigin` routes).
 */
export function sessionAuth(sessions: SessionStore, origin: DashboardOrigin) {
  return {
    refuseCrossSite: (c: Context): void => origin.refuseCrossSite(c),
    async session(c: Context): Promise<Session & { id: string }> {
      const id = sessionCookie(c)
      const mutating = c.req.method !== 'GET' && c.req.method !== 'HEAD'
      if (mutating) origin.refuseCrossSite(c)
      const { session, rotatedId } = await sessions.resolve(id, { mutating, csrf: c.req.header(CSRF_HEADER) })
      if (rotatedId) setSessionCookie(c, rotatedId, origin.secure(c))
      return { ...session, id: rotatedId ?? id! }
    },
  }
}

export type SessionResolver = ReturnType<typeof sessionAuth>
