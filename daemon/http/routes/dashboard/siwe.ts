import { getAddress } from 'viem'
import { dashboardPaths, siweLoginBody, siweMessageBody } from '../../../../src/sdk/dashboard/index.js'
import { clearSessionCookie, sessionCookie, setSessionCookie, siweOrigin } from '../../../dashboard/cookie.js'
import { remoteAddress } from '../../remote-address.js'
import { route } from '../../route.js'

/** A fresh EIP-4361 message with a single-use nonce, for the wallet to sign. Rate limited per client address (loopback too). */
export const siweMessage = route({
  method: 'POST', path: dashboardPaths.siweMessage, auth: 'open', surface: 'dashboard', body: siweMessageBody, maxBody: 1024,
  handler: async (c, s, { body }) => {
    s.loginLimiter.check(remoteAddress(c))
    return c.json(await s.siwe.message(siweOrigin(c), body))
  },
})

/**
 * Verifies the signed message, spends its nonce, and starts a session (a new cookie id every
 * sign-in). Not limited itself: every sign-in spends a nonce only the limited route above hands out.
 */
export const siweLogin = route({
  method: 'POST', path: dashboardPaths.siweLogin, auth: 'open', surface: 'dashboard', body: siweLoginBody, maxBody: 8192, noStore: true,
  handler: async (c, s, { body }) => {
    const wallet = await s.siwe.verify(siweOrigin(c), body)
    const previous = sessionCookie(c)
    if (previous) await s.sessions.destroy(previous)
    await s.signedIn(wallet)
    const { id, session } = await s.sessions.create(wallet)
    setSessionCookie(c, id)
    return c.json({ wallet, csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() })
  },
})

export const sessionShow = route({
  method: 'GET', path: dashboardPaths.session, auth: 'session', surface: 'dashboard',
  handler: (c, _s, { session }) => c.json({ wallet: getAddress(session.wallet), csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() }),
})

/** Ends the sign-in on the server (the cookie alone is not trusted to go away). */
export const logout = route({
  method: 'POST', path: dashboardPaths.logout, auth: 'session', surface: 'dashboard',
  handler: async (c, s, { session }) => {
    await s.sessions.destroy(session.id)
    clearSessionCookie(c)
    return c.json({ signedOut: true })
  },
})
