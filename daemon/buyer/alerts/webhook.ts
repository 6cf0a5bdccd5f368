import { ALERT_EVENTS } from '../../../src/sdk/platform/alerts.js'
import type { EndpointRow } from '../../seller/endpoints.js'
import type { WebhookEvent } from '../../seller/webhooks/queue.js'
import { alertView, type FiredAlertRow } from './store.js'

/**
 * One fired alert's events (`alert.<kind>`), one per webhook URL of the owning user: the URLs it
 * set on its endpoints, signed, persisted and retried like every settlement webhook. The platform
 * posts nowhere else. Keyed by alert and endpoint: queued once however often it is reported.
 */
export function alertEvents(row: FiredAlertRow, endpoints: EndpointRow[]): WebhookEvent[] {
  const urls = new Set<string>()
  const type = ALERT_EVENTS[row.kind]
  return endpoints
    .filter((e) => e.webhook_url && !urls.has(e.webhook_url) && urls.add(e.webhook_url))
    .map((e) => ({
      endpointId: e.id,
      key: `${e.id}:alert:${row.id}`,
      type,
      body: (id) =>
        JSON.stringify({ id, type, createdAt: new Date(Number(row.created_at)).toISOString(), data: alertView(row) }),
    }))
}
