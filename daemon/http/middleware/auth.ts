import type { Context } from 'hono'
import { BaseError } from '../../../src/errors/index.js'
import { keyPattern } from '../../auth/partner-keys.js'
import type { AuthService } from '../../auth/service.js'

const UNAUTHORIZED = 'missing or invalid x-api-key'

/** Checks the credential a route asks for; throws a 401 BaseError when it is wrong. */
export async function authorize(c: Context, auth: 'open' | 'partner' | 'operator', s: AuthService): Promise<void> {
  if (auth === 'partner') return checkPartner(c, s)
  if (auth === 'operator') return checkOperator(c, s)
}

async function checkPartner(c: Context, s: AuthService): Promise<void> {
  if (!s.enforce) return
  // Header names are case-insensitive in HTTP; Hono already folds them.
  const key = c.req.header('x-api-key')
  if (!key || !(await s.isPartnerKey(key))) {
    throw new BaseError('UNAUTHORIZED', UNAUTHORIZED, {
      details:
        'Send the partner key in the x-api-key header (Authorization: ' +
        'Bearer is for operator routes). Create one with `parx keys create`.',
    })
  }
}

function checkOperator(c: Context, s: AuthService): void {
  const header = c.req.header('authorization') ?? ''
  const token = header.startsWith('Bearer ') ? header.slice(7).trim() : ''
  if (c.req.header('x-api-key') || keyPattern(s.keyPrefix).test(token)) {
    throw new BaseError(
      'UNAUTHORIZED',
      'partner keys cannot call operator endpoints; to follow an ' +
        'order, poll GET /api/xchain/status/:orderId with your x-api-key',
    )
  }
  if (!s.isOperatorToken(token)) {
    throw new BaseError(
      'UNAUTHORIZED',
      'missing or invalid operator token: send Authorization: Bearer <operator token> (see `parx keys operator-token`)',
    )
  }
}
