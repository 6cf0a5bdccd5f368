import type { Context } from 'hono'
import { timingSafeEqual, createHash } from 'node:crypto'
import { BaseError } from '../../../src/errors/index.js'
import { keyPattern } from '../../auth/partner-keys.js'
import type { Services } from '../../services.js'
import type { RouteDef } from '../route.js'

const UNAUTHORIZED = 'missing or invalid x-api-key'

/** Checks the credential a route asks for; throws a 401 BaseError when it is wrong. */
export async function authorize(c: Context, def: RouteDef, s: Services): Promise<void> {
  if (def.auth === 'partner') return checkPartner(c, s)
  if (def.auth === 'operator') return checkOperator(c, s)
}

async function checkPartner(c: Context, s: Services): Promise<void> {
  if (!s.config.auth.enforce) return
  // Header names are case-insensitive in HTTP; Hono already folds them.
  const key = c.req.header('x-api-key')
  if (!key || !keyPattern(s.config.auth.keyPrefix).test(key) || !(await s.verdicts.isValid(key))) {
    throw new BaseError('UNAUTHORIZED', UNAUTHORIZED, {
      details: 'Send the partner key in the x-api-key header (Authorization: Bearer is for operator routes). Create one with `parx keys create`.',
    })
  }
}

function checkOperator(c: Context, s: Services): void {
  const header = c.req.header('authorization') ?? ''
  const token = header.startsWith('Bearer ') ? header.slice(7).trim() : ''
  const prefix = s.config.auth.keyPrefix
  if (c.req.header('x-api-key') || keyPattern(prefix).test(token)) {
    throw new BaseError('UNAUTHORIZED', 'partner keys cannot call operator endpoints; to follow an order, poll GET /api/xchain/status/:orderId with your x-api-key')
  }
  if (!token || !sameSecret(token, s.keys.operatorToken)) {
    throw new BaseError('UNAUTHORIZED', 'missing or invalid operator token: send Authorization: Bearer <operator token> (see `parx keys operator-token`)')
  }
}

/** Constant-time comparison of secrets of any length (hashing first evens the lengths). */
function sameSecret(a: string, b: string): boolean {
  const h = (x: string) => createHash('sha256').update(x).digest()
  return timingSafeEqual(h(a), h(b))
}
