import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { DASHBOARD_PATH, SESSION_COOKIE } from '../../src/sdk/dashboard/index.js'
import { SESSION_TTL_MS } from './sessions.js'

/** Secure only over TLS: a local daemon on http://127.0.0.1 could not keep a Secure cookie. */
const overTls = (c: Context) => new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https'

/** The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), scoped to the dashboard. */
export function setSessionCookie(c: Context, id: string): void {
  setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', secure: overTls(c), path: DASHBOARD_PATH, maxAge: Math.floor(SESSION_TTL_MS / 1000) })
}

export const sessionCookie = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE)

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, httpOnly: true, sameSite: 'Strict', secure: overTls(c) })
}

/** What EIP-4361 binds: the host the browser used and the page's URI. */
export function siweOrigin(c: Context): { domain: string; uri: string } {
  const url = new URL(c.req.url)
  const domain = c.req.header('host') ?? url.host
  return { domain, uri: `${overTls(c) ? 'https' : url.protocol.replace(':', '')}://${domain}${DASHBOARD_PATH}` }
}
