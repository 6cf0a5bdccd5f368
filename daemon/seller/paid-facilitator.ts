import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { SettleResponse, SupportedResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import { isRecord, type Payment, toPayment } from '../../src/sdk/x402/wire.js'
import type { Facilitator } from '../facilitator/service.js'

/** The facilitator calls a platform endpoint's gate makes. */
export type PaidFacilitatorService = Pick<Facilitator, 'supported' | 'verify' | 'settle'>

/** How long /supported's answer is shared by every endpoint's gate before it is asked again. */
const SUPPORTED_TTL_MS = 60_000

/**
 * The platform's own facilitator, called in process by its paid endpoints (daemon/seller/paid.ts)
 * and by the leader's claim duty (../seller/claim-duty.ts: a worker serves no /facilitator route).
 * `receiver` is who asks, as a partner key bound to it proves on POST /facilitator/settle: a
 * refund our receiver authorizer signs (batch-settlement, ../facilitator/evm/batch-settlement/refund.ts)
 * is given only to the channel's receiver. The caller (the paid route) names it from the endpoint
 * row, never from anything a buyer sends, and only where the platform holds the receiver's wallet
 * (payTo is one of the user's agents); undefined: asked as a caller without a key. Outside callers
 * are unchanged. /supported is one shared answer per SUPPORTED_TTL_MS, not one HTTP read per paid request.
 *
 * @example
 * const forEndpoint = paidFacilitator(facilitator)
 * paymentGate({ facilitator: forEndpoint(endpoint.pay_to_agent_id ? endpoint.pay_to : undefined), routes })
 */
export function paidFacilitator(
  service: PaidFacilitatorService,
  o: { supportedTtlMs?: number; now?: () => number } = {},
): (receiver: string | undefined) => SellerFacilitator {
  const ttl = o.supportedTtlMs ?? SUPPORTED_TTL_MS
  const now = o.now ?? Date.now
  let cached: { at: number; value: SupportedResponse } | undefined
  const supported = async (): Promise<SupportedResponse> => {
    if (!cached || now() - cached.at > ttl) cached = { at: now(), value: service.supported() }
    return cached.value
  }
  return (receiver) => {
    const caller = { wallet: async () => receiver }
    const payment = (body: unknown): Payment | { reason: string; message: string; network: string } => {
      const b = isRecord(body) ? body : {}
      const payload = isRecord(b.paymentPayload) ? b.paymentPayload : {}
      const requirements = isRecord(b.paymentRequirements) ? b.paymentRequirements : {}
      const p = toPayment(payload, requirements, b.x402Version)
      if (!('malformed' in p)) return { ...p, caller }
      const reason = p.malformed === 'payload' ? reasons.invalidPayload : reasons.invalidPaymentRequirements
      return {
        reason,
        message:
          `${p.malformed === 'payload' ? 'paymentPayload' : 'paymentRequirements'}.${p.field} ` +
          `is missing or malformed`,
        network: String(requirements.network ?? ''),
      }
    }
    return {
      supported,
      async verify(body: unknown): Promise<VerifyResponse> {
        const p = payment(body)
        return 'reason' in p
          ? { isValid: false, invalidReason: p.reason, invalidMessage: p.message, payer: '' }
          : service.verify(p)
      },
      async settle(body: unknown): Promise<SettleResponse> {
        const p = payment(body)
        return 'reason' in p
          ? {
              success: false,
              errorReason: p.reason,
              errorMessage: p.message,
              payer: '',
              transaction: '',
              network: p.network,
            }
          : service.settle(p)
      },
    }
  }
}
