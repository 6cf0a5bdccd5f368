import type { Context } from 'hono'
import { z } from 'zod'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import { type Payment, toPayment } from '../../../../src/sdk/x402/wire.js'
import type { AuthService } from '../../../auth/service.js'
import { networkByName } from '../../../facilitator/resolve.js'
import { authorize } from '../../middleware/auth.js'

/** The envelope of /verify and /settle; what is inside the two objects is checked by toPayment. */
export const PaymentBody = z.object({
  x402Version: z.number().int().optional(),
  paymentPayload: z.record(z.unknown(), { required_error: 'required', invalid_type_error: 'must be an object' }),
  paymentRequirements: z.record(z.unknown(), { required_error: 'required', invalid_type_error: 'must be an object' }),
})

/**
 * Reads a /verify or /settle body. A body that is not `{paymentPayload, paymentRequirements}`
 * objects is an HTTP error (400); fields inside them that are missing or malformed are a payment
 * failure, answered in x402's own shape. Payments on mainnet networks need a partner key (docs/facilitator.md "x402
 * facilitator").
 */
export async function readPayment(
  c: Context,
  body: z.output<typeof PaymentBody>,
  auth: AuthService,
): Promise<Payment | { reason: string; message: string }> {
  const p = toPayment(body.paymentPayload, body.paymentRequirements, body.x402Version)
  const named = [body.paymentRequirements.network, 'malformed' in p ? undefined : p.network]
  if (named.some((n) => typeof n === 'string' && networkByName(n)?.kind === 'mainnet'))
    await authorize(c, 'partner', auth)
  if ('malformed' in p) {
    const reason = p.malformed === 'payload' ? reasons.invalidPayload : reasons.invalidPaymentRequirements
    return {
      reason,
      message:
        `${p.malformed === 'payload' ? 'paymentPayload' : 'paymentRequirements'}.${p.field} ` +
        `is missing or malformed`,
    }
  }
  return p
}
