import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { SettleResponse } from '../../../../src/sdk/x402/types.js'
import { route } from '../../route.js'
import { PaymentBody, readPayment } from './request.js'

/**
 * A failed settlement is never a 200: 409 when the authorization was already settled (or is
 * being settled), or its payment id was used by another payload, 502 when the chain's answer is missing or unexpected,
 * 422 for a payment the
 * chain or our checks rejected. The body is x402's `{success: false, errorReason, ...}` in all cases.
 */
export function settleStatus(r: SettleResponse): 200 | 409 | 422 | 502 {
  if (r.success) return 200
  if (r.errorReason === reasons.duplicateSettlement || r.errorReason === reasons.paymentIdentifierMismatch) return 409
  if (r.errorReason === reasons.settlementPending || r.errorReason === reasons.unexpectedSettleError) return 502
  return 422
}

/** POST /facilitator/settle: settles at most once per authorization and answers only once the outcome is stored. */
const def = route({
  method: 'POST',
  path: '/facilitator/settle',
  auth: 'open',
  surface: 'facilitator',
  flow: 'facilitator',
  body: PaymentBody,
  handler: async (c, s, { body }) => {
    const p = await readPayment(c, body, s.auth)
    // Read only by a scheme that must know who asks (a batch-settlement refund our authorizer signs).
    const key = c.req.header('x-api-key')
    if (!('reason' in p)) p.caller = { wallet: async () => (key ? s.auth.walletOf(key) : undefined) }
    const network = String((p as { requirements?: { network?: string } }).requirements?.network ?? '')
    const r: SettleResponse =
      'reason' in p
        ? { success: false, errorReason: p.reason, errorMessage: p.message, payer: '', transaction: '', network }
        : await s.service.settle(p)
    return c.json(r, settleStatus(r))
  },
})
export default def
