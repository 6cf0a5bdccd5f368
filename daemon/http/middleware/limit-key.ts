import { createHash } from 'node:crypto'
import type { Context } from 'hono'
import type { AuthService } from '../../auth/service.js'
import type { Session } from '../../dashboard/sessions.js'
import type { Caller } from '../../platform/service.js'
import type { RouteAuth } from '../route.js'
import type { RateLimiter } from './rate-limit.js'

export type Resolved = { caller?: Caller; session?: Session & { id: string } }

/**
 * Runs the route's credential check, then takes a token from the right bucket: an authenticated
 * caller's own (so clients behind one address, a NAT or a load balancer, do not share one), an
 * anonymous one's address. A credential that fails costs its address a token before the 401, so
 * guessing keys is limited like any anonymous traffic and never earns a fresh bucket.
 */
export async function limitedResolve<T extends Resolved>(
  c: Context,
  p: { limiter: RateLimiter; address: string | undefined; auth: RouteAuth; authService: AuthService },
  resolve: () => Promise<T>,
): Promise<T> {
  let resolved: T
  try {
    resolved = await resolve()
  } catch (e) {
    await p.limiter.check(p.address)
    throw e
  }
  await p.limiter.check(p.address, limitIdentity(c, p.auth, resolved, p.authService))
  return resolved
}

/** The bucket of a caller whose credential was just checked; undefined for an anonymous one. */
export function limitIdentity(
  c: Context,
  auth: RouteAuth,
  r: Resolved,
  s: Pick<AuthService, 'enforce'>,
): string | undefined {
  if (r.caller) return r.caller.kind === 'user' ? `user:${r.caller.userId}` : `agent:${r.caller.agentId}`
  if (r.session) return `wallet:${r.session.wallet.toLowerCase()}`
  // Only a key that was checked: with enforcement off any string passes, and each would be a new bucket.
  if (auth === 'partner' && s.enforce) {
    const key = c.req.header('x-api-key')
    if (key) return `partner:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`
  }
  if (auth === 'operator') return 'operator'
  return undefined
}
