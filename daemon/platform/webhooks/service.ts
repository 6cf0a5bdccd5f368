import type { Logger } from 'pino'
import type { SellerHooks } from '../../../src/sdk/x402/seller/hooks.js'
import type { Store } from '../../store/store.js'
import { paidUrl, type EndpointRow, type EndpointStore } from '../endpoints.js'
import type { WalletSeal } from '../wallet-seal.js'
import { webhookDelivery, type WebhookDelivery } from './deliver.js'
import { settlementEvent, type SettlementOutcome } from './events.js'
import { webhookQueue, type WebhookQueue } from './queue.js'
import { webhookSecrets, type WebhookSecrets } from './secret.js'

/** Sellers' settlement webhooks (README "Settlement webhooks"): secrets, the persisted queue, its delivery. */
export type SettlementWebhooks = {
  secrets: WebhookSecrets
  queue: WebhookQueue
  delivery: WebhookDelivery
  /** Queues the outcome's event when the endpoint has a webhook, and wakes the delivery. */
  record(o: SettlementOutcome): Promise<void>
  /** The seller-middleware hooks that record every x402 settle outcome of this endpoint's paid calls. */
  hooksFor(e: EndpointRow): SellerHooks[]
}

export function settlementWebhooks(p: { store: Store; endpoints: EndpointStore; seal: WalletSeal | undefined; platformUrl: string; log: Logger }): SettlementWebhooks {
  const secrets = webhookSecrets(p.seal)
  const queue = webhookQueue(p.store)
  const delivery = webhookDelivery({ queue, secrets, endpoint: (id) => p.endpoints.served(id), log: p.log })
  const record = async (o: SettlementOutcome) => {
    if (!o.endpoint.webhook_url) return
    // Written before the paid answer goes out: the buyer hearing back means the event is in the store.
    await queue.enqueue(settlementEvent(o))
    void delivery.poke()
  }
  return {
    secrets, queue, delivery, record,
    hooksFor: (e) => (e.webhook_url
      ? [{ onAfterSettle: ({ paymentPayload, result }) => record({ endpoint: e, paidUrl: paidUrl(p.platformUrl, e.id), payment: paymentPayload, protocol: 'x402', result }) }]
      : []),
  }
}
