/**
 * Polling a cross-chain order's status until it settles, shared by the SDK client (undici) and the
 * CLI (node:http): each passes its own `read`. Types only from wire.ts, so the CLI loads no zod here.
 */
import { BaseError } from '../../errors/base.js'
import type { XchainRail, XchainStatus, XchainStatusResponse } from './wire.js'

/** The statuses after which nothing changes any more (docs/cross-chain.md "Cross-chain orders"). */
export const FINAL_STATUSES: readonly XchainStatus[] = ['claimed', 'refunded', 'attention']
export const isFinal = (s: XchainStatus) => FINAL_STATUSES.includes(s)

export type WaitOptions = {
  rail?: XchainRail
  /** Stop when this holds (default: a final status). */
  until?: (s: XchainStatusResponse) => boolean
  /** Give up after this long (default 120 s); the error carries the last answer. */
  timeoutMs?: number
  /** Between polls (default 250 ms). */
  intervalMs?: number
  /** Every answer that differs from the previous one (status, stage or a reference). */
  onUpdate?: (s: XchainStatusResponse) => void
  signal?: AbortSignal
}

/** Polling ended before the order reached what was waited for; `last` is the last answer. */
export class OrderWaitTimeoutError extends BaseError {
  override name = 'OrderWaitTimeoutError'
  constructor(
    readonly last: XchainStatusResponse,
    readonly timeoutMs: number,
  ) {
    super(
      'WAIT_TIMEOUT',
      `order ${last.orderId} is still ${last.status} (stage ${last.stage ?? 'none'}) after ` +
        `${Math.round(timeoutMs / 1000)} s; poll again later, it keeps going without you`,
    )
  }
}

/** Reads the status until `until` (default: a final status) holds, and returns that answer. */
export async function pollStatus(
  read: () => Promise<XchainStatusResponse>,
  o: Omit<WaitOptions, 'rail'> = {},
): Promise<XchainStatusResponse> {
  const timeoutMs = o.timeoutMs ?? 120_000
  const end = Date.now() + timeoutMs
  const until = o.until ?? ((s: XchainStatusResponse) => isFinal(s.status))
  let seen = ''
  for (;;) {
    o.signal?.throwIfAborted()
    const s = await read()
    const key = `${s.status}|${s.stage}|${s.deliverRef}|${s.claimRef}|${s.refundRef}`
    if (key !== seen) o.onUpdate?.(s)
    seen = key
    if (until(s)) return s
    if (Date.now() >= end) throw new OrderWaitTimeoutError(s, timeoutMs)
    await sleep(o.intervalMs ?? 250, o.signal)
  }
}

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true })
  })
}
