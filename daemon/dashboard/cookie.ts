import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { DASHBOARD_PATH, SESSION_COOKIE } from '../../src/sdk/dashboard/index.js'
import { SESSION_TTL_MS } from './sessions.js'

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it),
 * scoped to the dashboard. `secure` comes from the deployment's public origin (daemon/dashboard/
 * origin.ts), never from a header a client may forge: a local daemon on http://127.0.0.1 could
 * not keep a Secure cookie.
 */
export function setSessionCookie(c: Context, id: string, secure: boolean): void {
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'Strict',
    secure,
    path: DASHBOARD_PATH,
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  })
}

export const sessionCookie = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE)

export function clearSessionCookie(c: Context, secure: boolean): void {
  deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, httpOnly: true, sameSite: 'Strict', secure })
}
