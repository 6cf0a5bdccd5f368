import type { Context } from 'hono'
import { StatusParams, StatusQuery, statusPaths, TransactionParams } from '../../../../src/sdk/x402/status.js'
import type { AuthService } from '../../../auth/service.js'
import { networkByName } from '../../../facilitator/resolve.js'
import { authorize } from '../../middleware/auth.js'
import { route } from '../../route.js'

/**
 * Payments on mainnet networks are a partner's business, as on /verify and /settle (docs/facilitator.md "x402
 * facilitator").
 */
async function mainnetNeedsKey(c: Context, auth: AuthService, networks: string[]): Promise<void> {
  if (networks.some((n) => networkByName(n)?.kind === 'mainnet')) await authorize(c, 'partner', auth)
}

/** GET /facilitator/status/:paymentId: a payment by its payment-identifier, `pending | completed | failed`. */
export const statusByPaymentId = route({
  method: 'GET',
  path: statusPaths.byPaymentId,
  auth: 'open',
  surface: 'facilitator',
  params: StatusParams,
  query: StatusQuery,
  handler: async (c, s, { params, query }) => {
    const status = await s.service.statusOf(params.paymentId, query.payTo)
    await mainnetNeedsKey(c, s.auth, [status.network])
    return c.json(status)
  },
})

/** GET /facilitator/status/tx/:transaction: every payment a settlement transaction carries. */
export const statusByTransaction = route({
  method: 'GET',
  path: statusPaths.byTransaction,
  auth: 'open',
  surface: 'facilitator',
  params: TransactionParams,
  handler: async (c, s, { params }) => {
    const status = await s.service.statusOfTransaction(params.transaction)
    await mainnetNeedsKey(
      c,
      s.auth,
      status.payments.map((p) => p.network),
    )
    return c.json(status)
  },
})
