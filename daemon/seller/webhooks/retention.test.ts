import { afterEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { webhookQueue } from './queue.js'
import { pruneWebhookDeliveries } from './retention.js'

const DAY = 24 * 60 * 60 * 1000
const log = { info: () => {}, warn: () => {} }
let store: Store | undefined
afterEach(async () => store?.close())

describe('webhook delivery retention', () => {
  it('deletes finished rows older than the retention, in batches, and never a row still waiting', async () => {
    store = await openTestStore()
    const q = webhookQueue(store)
    const now = 1_800_000_000_000
    const event = (key: string) => ({
      endpointId: 'ep',
      key,
      type: 'payment.settled',
      body: (id: string) => JSON.stringify({ id }),
    })
    const ids: Record<string, string> = {}
    for (const k of ['oldDelivered', 'oldGaveUp', 'newDelivered', 'oldWaiting', 'oldRetrying'])
      ids[k] = (await q.enqueue(event(k), now - 40 * DAY))!
    await q.delivered(ids.oldDelivered!, now - 31 * DAY)
    await store.db
      .updateTable('platform_webhook_deliveries')
      .set({ gave_up_at: now - 35 * DAY })
      .where('id', '=', ids.oldGaveUp!)
      .execute()
    await q.delivered(ids.newDelivered!, now - 29 * DAY)
    await q.failed(ids.oldRetrying!, 'HTTP 500', now - 39 * DAY, false)
    // Many old finished rows: deleted over several batches.
    for (let i = 0; i < 25; i++) {
      const id = (await q.enqueue(event(`bulk${i}`), now - 50 * DAY))!
      await q.delivered(id, now - 45 * DAY)
    }
    const pruned = await pruneWebhookDeliveries({
      queue: { prune: (before) => q.prune(before, 10) },
      retentionDays: 30,
      log,
      now: () => now,
    })
    expect(pruned).toBe(27)
    const left = (await q.byEndpoint('ep')).map((r) => r.event_key).sort()
    expect(left).toEqual(['newDelivered', 'oldRetrying', 'oldWaiting'])
    // Nothing more to do: a second pass deletes nothing.
    expect(await pruneWebhookDeliveries({ queue: q, retentionDays: 30, log, now: () => now })).toBe(0)
  })
})
