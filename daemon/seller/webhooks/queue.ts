import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Store } from '../../store/store.js'
import type { PlatformWebhookDeliveriesTable } from '../../store/tables/platform.js'

export type DeliveryRow = Selectable<PlatformWebhookDeliveriesTable>
/** A due row and whose it is: the user owning its endpoint (deliveries are shared out fairly between them). */
export type DueRow = DeliveryRow & { tenant: string }

/** An event waiting for its receiver: what it is about (`key`, one event per key) and its JSON. */
export type WebhookEvent = { endpointId: string; key: string; type: string; body: (id: string) => string }

/**
 * The persisted delivery queue (platform_webhook_deliveries, migration 510). An event is a row
 * before the seller's buyer gets its answer, so a crash or restart never loses it; the unique
 * `event_key` makes enqueueing one outcome twice a no-op. Several processes may drain it: a row is
 * taken by moving its `next_attempt_at` forward only if nobody moved it first (a lease).
 */
export function webhookQueue(store: Store) {
  const { db } = store
  return {
    /** The new row's id (the event id), or undefined when this outcome was already queued. */
    async enqueue(e: WebhookEvent, now = Date.now()): Promise<string | undefined> {
      const id = randomUUID()
      const r = await db
        .insertInto('platform_webhook_deliveries')
        .values({
          id,
          endpoint_id: e.endpointId,
          event_key: e.key,
          type: e.type,
          body: e.body(id),
          attempts: 0,
          next_attempt_at: now,
          delivered_at: null,
          gave_up_at: null,
          last_error: null,
          created_at: now,
        })
        .onConflict((oc) => oc.column('event_key').doNothing())
        .executeTakeFirst()
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0 ? id : undefined
    },
    /**
     * Due rows, oldest first, with their tenant (the endpoint's user). `busy` tenants are left out,
     * so a tenant with many events waiting on a slow receiver cannot fill every batch and hide
     * the other tenants' events behind its own.
     */
    async due(now: number, limit: number, busy: readonly string[] = []): Promise<DueRow[]> {
      let q = db
        .selectFrom('platform_webhook_deliveries as d')
        .leftJoin('platform_endpoints as e', 'e.id', 'd.endpoint_id')
        .selectAll('d')
        .select('e.user_id as tenant')
        .where('d.delivered_at', 'is', null)
        .where('d.gave_up_at', 'is', null)
        .where('d.next_attempt_at', '<=', now)
      if (busy.length) q = q.where((w) => w.or([w('e.user_id', 'is', null), w('e.user_id', 'not in', [...busy])]))
      const rows = await q.orderBy('d.next_attempt_at').limit(limit).execute()
      // An endpoint deleted since: its own tenant (its attempt gives up at once).
      return rows.map((r) => ({ ...r, tenant: r.tenant ?? `endpoint:${r.endpoint_id}` }))
    },
    /** Takes the row for one attempt (until `leaseUntil`); false when another process took it first. */
    async take(row: DeliveryRow, leaseUntil: number): Promise<boolean> {
      const r = await db
        .updateTable('platform_webhook_deliveries')
        .set({ next_attempt_at: leaseUntil, attempts: Number(row.attempts) + 1 })
        .where('id', '=', row.id)
        .where('next_attempt_at', '=', row.next_attempt_at)
        .where('delivered_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    delivered: (id: string, now = Date.now()) =>
      db
        .updateTable('platform_webhook_deliveries')
        .set({ delivered_at: now, last_error: null })
        .where('id', '=', id)
        .execute(),
    /** The attempt failed: try again at `next`, or never when `giveUp`. */
    failed: (id: string, error: string, next: number, giveUp: boolean) =>
      db
        .updateTable('platform_webhook_deliveries')
        .set({ last_error: error.slice(0, 500), next_attempt_at: next, ...(giveUp ? { gave_up_at: Date.now() } : {}) })
        .where('id', '=', id)
        .execute(),
    /**
     * Deletes up to `batch` finished rows (delivered, or given up) that finished before `before`;
     * the number deleted. A row still waiting for its receiver is never deleted, however old.
     */
    async prune(before: number, batch = 1_000): Promise<number> {
      const finished = db
        .selectFrom('platform_webhook_deliveries')
        .select('id')
        .where((w) =>
          w.or([
            w.and([w('delivered_at', 'is not', null), w('delivered_at', '<', before)]),
            w.and([w('gave_up_at', 'is not', null), w('gave_up_at', '<', before)]),
          ]),
        )
        .limit(batch)
      const r = await db.deleteFrom('platform_webhook_deliveries').where('id', 'in', finished).executeTakeFirst()
      return Number(r.numDeletedRows)
    },
    byEndpoint: (endpointId: string) =>
      db
        .selectFrom('platform_webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .orderBy('created_at')
        .execute(),
  }
}

export type WebhookQueue = ReturnType<typeof webhookQueue>
