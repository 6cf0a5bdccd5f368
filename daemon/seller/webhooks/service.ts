import type { Logger } from 'pino'
import type { WalletSeal } from '../../platform/wallet-seal.js'
import type { Store } from '../../store/store.js'
import type { EndpointStore } from '../endpoints.js'
import { type WebhookDelivery, type WebhookDeliveryDeps, webhookDelivery } from './deliver.js'
import { type SettlementOutcome, settlementEvent } from './events.js'
import { type WebhookQueue, webhookQueue } from './queue.js'
import { type WebhookSecrets, webhookSecrets } from './secret.js'

/**
 * Sellers' settlement webhooks (docs/platform-api.md "Settlement webhooks"): secrets, the persisted queue, its
 * delivery.
 */
export type SettlementWebhooks = {
  secrets: WebhookSecrets
  queue: WebhookQueue
  delivery: WebhookDelivery
  /** Queues the outcome's event when the endpoint has a webhook, and wakes the delivery. */
  record(o: SettlementOutcome): Promise<void>
}

export function settlementWebhooks(p: {
  store: Store
  endpoints: EndpointStore
  seal: WalletSeal | undefined
  log: Logger
  fetch?: WebhookDeliveryDeps['fetch']
}): SettlementWebhooks {
  const secrets = webhookSecrets(p.seal)
  const queue = webhookQueue(p.store)
  const delivery = webhookDelivery({
    queue,
    secrets,
    endpoint: (id) => p.endpoints.served(id),
    log: p.log,
    fetch: p.fetch,
  })
  const record = async (o: SettlementOutcome) => {
    if (!o.endpoint.webhook_url) return
    // Written before the paid answer goes out: the buyer hearing back means the event is in the store.
    await queue.enqueue(settlementEvent(o))
    void delivery.poke()
  }
  return {
    secrets,
    queue,
    delivery,
    record,
  }
}
