import type { EndpointRow } from '../../seller/endpoints.js'
import type { WebhookEvent } from '../../seller/webhooks/queue.js'
import type { ApprovalRow } from './store.js'
import { approvalView } from './view.js'

export const APPROVAL_REQUESTED = 'approval.requested'

/**
 * `approval.requested`, one per webhook URL of the owning user. A user's webhooks are the ones it
 * set on its endpoints (docs/platform-api.md "Settlement webhooks"): the same signed, persisted,
 * retried delivery, and no other destination, so the platform never posts anywhere the user did
 * not name. Keyed by approval and endpoint: queued once however often it is reported.
 */
export function approvalRequestedEvents(row: ApprovalRow, endpoints: EndpointRow[], now = Date.now()): WebhookEvent[] {
  const urls = new Set<string>()
  return endpoints
    .filter((e) => e.webhook_url && !urls.has(e.webhook_url) && urls.add(e.webhook_url))
    .map((e) => ({
      endpointId: e.id,
      key: `${e.id}:approval:${row.id}:requested`,
      type: APPROVAL_REQUESTED,
      body: (id) =>
        JSON.stringify({
          id,
          type: APPROVAL_REQUESTED,
          createdAt: new Date(now).toISOString(),
          data: approvalView(row, now),
        }),
    }))
}
