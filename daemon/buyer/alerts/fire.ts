import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { EndpointRow } from '../../seller/endpoints.js'
import { webhookQueue } from '../../seller/webhooks/queue.js'
import type { Database } from '../../store/database.js'
import type { Store } from '../../store/store.js'
import type { Firing } from './evaluate.js'
import type { FiredAlertRow } from './store.js'
import { alertEvents } from './webhook.js'

/**
 * Stores the firings and queues their webhooks in the caller's transaction: an alert is in the
 * history and its deliveries are in the queue together, or neither is. A firing whose crossing
 * (dedupe_key, unique in the store) is there already inserts nothing: another replica or an
 * earlier evaluation fired it. Returns the alerts this call fired.
 */
export async function fire(
  tx: Kysely<Database>,
  store: Store,
  p: { userId: string; firings: Firing[]; endpoints: EndpointRow[]; now?: number },
): Promise<FiredAlertRow[]> {
  const queue = webhookQueue({ ...store, db: tx })
  const fired: FiredAlertRow[] = []
  for (const f of p.firings) {
    const row: FiredAlertRow = {
      id: randomUUID(),
      dedupe_key: f.dedupeKey,
      rule_id: f.rule.id,
      user_id: p.userId,
      agent_id: f.agentId,
      kind: f.rule.kind,
      figures: JSON.stringify(f.figures),
      message: f.message,
      created_at: p.now ?? Date.now(),
    }
    const r = await tx
      .insertInto('platform_alerts')
      .values(row)
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst()
    if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) continue
    for (const e of alertEvents(row, p.endpoints)) await queue.enqueue(e, row.created_at)
    fired.push(row)
  }
  return fired
}
