import type { Logger } from 'pino'
import type { WebhookQueue } from './queue.js'

/** How often the leader prunes (slow: the rows only have to stop growing, not vanish on the hour). */
export const PRUNE_EVERY_MS = 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

export type WebhookRetentionParameters = {
  queue: Pick<WebhookQueue, 'prune'>
  /**
   * Finished deliveries older than this are deleted (webhooks.retentionDays; docs/operations.md "Retention and log
   * size").
   */
  retentionDays: number
  log: Pick<Logger, 'info' | 'warn'>
  everyMs?: number
  now?: () => number
}

/**
 * One pass: finished delivery rows (delivered or given up) older than the retention are deleted, in
 * batches so a large backlog never holds the store's writer for long. Rows still waiting for their
 * receiver are never deleted. The number deleted.
 */
export async function pruneWebhookDeliveries(p: WebhookRetentionParameters): Promise<number> {
  const before = (p.now ?? Date.now)() - p.retentionDays * DAY_MS
  let total = 0
  for (;;) {
    const n = await p.queue.prune(before)
    total += n
    if (n === 0) break
  }
  if (total)
    p.log.info(
      { deleted: total, retentionDays: p.retentionDays },
      'webhook deliveries: finished rows past the retention deleted',
    )
  return total
}

/**
 * A worker-leader duty: prunes at once, then every `everyMs`. Returns its stop, which waits for a
 * pass in progress.
 */
export function webhookRetention(p: WebhookRetentionParameters): () => Promise<void> {
  let pass: Promise<unknown> = Promise.resolve()
  const run = () => {
    pass = pass
      .then(() => pruneWebhookDeliveries(p))
      .catch((err) => p.log.warn({ err }, 'webhook deliveries: pruning failed; the next pass retries'))
  }
  run()
  const timer = setInterval(run, p.everyMs ?? PRUNE_EVERY_MS)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await pass
  }
}
