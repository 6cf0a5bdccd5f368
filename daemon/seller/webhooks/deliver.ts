import type { Logger } from 'pino'
import { BaseError } from '../../../src/errors/index.js'
import { readBounded } from '../../buyer/pay/seller-body.js'
import type { EndpointRow } from '../endpoints.js'
import { fairShares } from './fair.js'
import type { DeliveryRow, WebhookQueue } from './queue.js'
import { type WebhookSecrets, webhookSignature } from './secret.js'

/** Header names of a delivery (Standard Webhooks); docs/platform-api.md "Settlement webhooks" has the recipe. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const

/**
 * Retries: 1 s, 2 s, 4 s ... doubling up to an hour apart; after the last attempt (about 8 hours in) the event is given
 * up.
 */
export const RETRY = { firstMs: 1_000, maxMs: 3_600_000, attempts: 20 }
/** How long one attempt may take, and how long its row stays taken (longer, so no one else sends it meanwhile). */
const ATTEMPT_TIMEOUT_MS = 10_000
const LEASE_MS = 30_000
const POLL_MS = 1_000
const BATCH = 20
/**
 * Attempts in flight at once, per tenant (the user owning the endpoint) and in all (daemon/seller/webhooks/fair.ts).
 */
export const WEBHOOK_SHARES = { perTenant: 4, total: 64 }
/**
 * A receiver's answer is not used, only its status: at most this much of it is read (the rest is cancelled), so a
 * receiver streaming without end holds nothing.
 */
export const MAX_RECEIVER_BODY = 64 * 1024

export type WebhookDeliveryDeps = {
  queue: WebhookQueue
  secrets: WebhookSecrets
  /** The endpoint's current webhook (a URL changed meanwhile gets the pending events; a removed one drops them). */
  endpoint(id: string): Promise<EndpointRow | undefined>
  log: Logger
  /** The guarded egress fetch (daemon/egress/) in the daemon; plain fetch by default. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

export const retryDelay = (attempts: number) => Math.min(RETRY.firstMs * 2 ** Math.max(0, attempts - 1), RETRY.maxMs)

/**
 * Drains the queue: every due event is POSTed to its endpoint's webhook URL, signed; a 2xx is
 * delivered, anything else (status, timeout, refused connection) is tried again later with
 * backoff. At least once: a receiver that answered 2xx after we gave up waiting gets it again, and
 * dedupes on `webhook-id`.
 */
export function webhookDelivery(d: WebhookDeliveryDeps) {
  const f = d.fetch ?? fetch
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let again = false
  let stopped = false
  // One tenant's slow or hanging receivers hold its own slots only; a freed slot starts the next event at once.
  const shares = fairShares({
    ...WEBHOOK_SHARES,
    batch: BATCH,
    slotMs: LEASE_MS,
    due: (busy, limit) => d.queue.due(Date.now(), limit, busy),
    run: (r) =>
      attempt(r).catch((err) => d.log.warn({ err, event: r.id }, 'webhook delivery attempt failed unexpectedly')),
    freed: () => {
      if (!stopped) void poke()
    },
  })

  async function attempt(row: DeliveryRow): Promise<void> {
    const now = Date.now()
    if (!(await d.queue.take(row, now + LEASE_MS))) return
    const attempts = Number(row.attempts) + 1
    const e = await d.endpoint(row.endpoint_id)
    if (!e?.webhook_url || !e.webhook_secret) {
      await d.queue.failed(row.id, 'the endpoint has no webhook any more (removed, or the endpoint deleted)', now, true)
      return
    }
    const ts = Math.floor(now / 1000)
    try {
      const res = await f(e.webhook_url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        body: row.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'parx-webhooks/1',
          [WEBHOOK_HEADERS.id]: row.id,
          [WEBHOOK_HEADERS.timestamp]: String(ts),
          [WEBHOOK_HEADERS.signature]: webhookSignature(d.secrets.key(e.id, e.webhook_secret), row.id, ts, row.body),
        },
      })
      await readBounded(res, MAX_RECEIVER_BODY).catch(() => {})
      if (res.status >= 200 && res.status < 300) return void (await d.queue.delivered(row.id))
      await retry(row, attempts, `the receiver answered ${res.status}`)
    } catch (err) {
      await retry(
        row,
        attempts,
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${ATTEMPT_TIMEOUT_MS} ms`
          : (refusal(err) ?? (err as Error).message),
      )
    }
  }
  async function retry(row: DeliveryRow, attempts: number, why: string) {
    const giveUp = attempts >= RETRY.attempts
    await d.queue.failed(row.id, why, Date.now() + retryDelay(attempts), giveUp)
    d.log.warn({ event: row.id, endpoint: row.endpoint_id, attempts, giveUp }, `webhook delivery failed: ${why}`)
  }
  async function pass(): Promise<void> {
    do {
      again = false
      await shares.fill()
    } while (again && !stopped)
  }
  /** Runs a pass now, or right after the one running (an event queued during a pass is not left for the next tick). */
  function poke(): Promise<void> {
    if (running !== undefined) {
      again = true
      return running
    }
    running = pass()
      .catch((err) => d.log.warn({ err }, 'webhook delivery pass failed; retried on the next tick'))
      .finally(() => (running = undefined))
    return running
  }
  return {
    poke,
    start() {
      timer = setInterval(() => void poke(), POLL_MS)
      timer.unref()
      void poke()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      await running
      await shares.settled()
    },
  }
}

export type WebhookDelivery = ReturnType<typeof webhookDelivery>

/** The egress guard's refusal behind fetch's bare "fetch failed", so the delivery's last error says why. */
function refusal(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown }).cause
  return cause instanceof BaseError && cause.code === 'EGRESS_REFUSED' ? `EGRESS_REFUSED: ${cause.message}` : undefined
}
