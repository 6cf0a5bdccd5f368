import type { HoldRecord } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import { type EndpointStore, paidUrl } from './endpoints.js'
import type { SettlementWebhooks } from './webhooks/service.js'

/**
 * The payment.voided webhook of a hold the leader's sweep voided (daemon/seller/hold-duty.ts): the
 * seller hears of it as of a void in the paid call itself. The hold's tag is its endpoint; an
 * endpoint deleted since has no webhook to tell. Keyed by the void's transaction, so a sweep
 * reported twice is one event.
 */
export async function recordHoldVoid(
  p: { endpoints: EndpointStore; webhooks: SettlementWebhooks; platformUrl: string },
  hold: HoldRecord,
  result: SettleResponse,
): Promise<void> {
  const endpoint = hold.tag ? await p.endpoints.served(hold.tag) : undefined
  if (!endpoint) return
  await p.webhooks.record({
    endpoint,
    paidUrl: paidUrl(p.platformUrl, endpoint.id),
    protocol: 'x402',
    payment: { paymentId: hold.id, swept: true },
    result,
  })
}
