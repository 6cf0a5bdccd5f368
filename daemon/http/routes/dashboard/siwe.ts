import { getAddress } from 'viem'
import { dashboardPaths, siweLoginBody, siweMessageBody } from '../../../../src/sdk/dashboard/index.js'
import { clearSessionCookie, sessionCookie, setSessionCookie } from '../../../dashboard/cookie.js'
import { addressBucket } from '../../address-bucket.js'
import { clientOf } from '../../client-address.js'
import { route } from '../../route.js'

/**
 * A fresh EIP-4361 message with a single-use nonce, for the wallet to sign, naming the deployment's
 * public origin (daemon/dashboard/origin.ts). Rate limited per client address, IPv6 per /64 (loopback too).
 * Like the login, taken only from the dashboard's own page (`sameOrigin`).
 */
export const siweMessage = route({
  method: 'POST',
  path: dashboardPaths.siweMessage,
  auth: 'open',
  sameOrigin: true,
  surface: 'dashboard',
  body: siweMessageBody,
  maxBody: 1024,
  handler: async (c, s, { body }) => {
    await s.loginLimiter.check(addressBucket(clientOf(c).address))
    return c.json(await s.siwe.message(s.origin.siwe(c), body))
  },
})

/**
 * Verifies the signed message, spends its nonce, and starts a session (a new cookie id every
 * sign-in). A refused attempt spends the nonce too, so each message allows one try (and one
 * contract-wallet check on chain); attempts are also limited per client address, in a bucket of
 * their own beside the messages'. Taken only from the dashboard's own page (`sameOrigin`): a page
 * elsewhere posting the attacker's own signed message would sign the visitor's browser in as the
 * attacker, who would then see the agents and keys the visitor creates.
 */
export const siweLogin = route({
  method: 'POST',
  path: dashboardPaths.siweLogin,
  auth: 'open',
  sameOrigin: true,
  surface: 'dashboard',
  body: siweLoginBody,
  maxBody: 8192,
  noStore: true,
  handler: async (c, s, { body }) => {
    await s.loginLimiter.check(`login:${addressBucket(clientOf(c).address)}`)
    const wallet = await s.siwe.verify(s.origin.siwe(c), body)
    const previous = sessionCookie(c)
    if (previous) await s.sessions.destroy(previous)
    await s.signedIn(wallet)
    const { id, session } = await s.sessions.create(wallet)
    setSessionCookie(c, id, s.origin.secure(c))
    return c.json({ wallet, csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() })
  },
})

export const sessionShow = route({
  method: 'GET',
  path: dashboardPaths.session,
  auth: 'session',
  surface: 'dashboard',
  handler: (c, _s, { session }) =>
    c.json({
      wallet: getAddress(session.wallet),
      csrfToken: session.csrfToken,
      expiresAt: new Date(session.expiresAt).toISOString(),
    }),
})

/** Ends the sign-in on the server (the cookie alone is not trusted to go away). */
export const logout = route({
  method: 'POST',
  path: dashboardPaths.logout,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) => {
    await s.sessions.destroy(session.id)
    clearSessionCookie(c, s.origin.secure(c))
    return c.json({ signedOut: true })
  },
})
