import type { IncomingHttpHeaders } from 'node:http'

/**
 * Which headers cross between a buyer, the platform and a third party (docs/hosting.md "Hosting safely":
 * header policy). Paid endpoints are served on the platform's (and by default the dashboard's)
 * origin, so both directions are allow-lists: whatever is not named here stays where it was.
 */

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1, plus the proxy ones and Trailer): they describe one
 * connection, never forwarded.
 */
export const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
])

/**
 * Buyer -> upstream: content negotiation, conditional and range requests, tracing, and the buyer's
 * own Authorization for the upstream (except an MPP `Payment` credential, which is ours). Never
 * Cookie (the dashboard session), the platform's keys (x-user-key, x-agent-key, x-api-key), the
 * payment headers, Host, Origin, Referer or forwarding headers.
 */
export const TO_UPSTREAM = new Set([
  'accept',
  'accept-language',
  'authorization',
  'cache-control',
  'content-language',
  'content-type',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'idempotency-key',
  'prefer',
  'range',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-request-id',
])

/**
 * Upstream -> buyer: what describes the content. Never Set-Cookie (it would land on the
 * dashboard's origin), Location (it is relative to the upstream, and a redirect from the paid URL
 * could point anywhere on ours), WWW-Authenticate (a Payment challenge there would ask the buyer to
 * pay someone else), caching (a paid answer is `private`, the platform says so), CORS, CSP or framing
 * headers (the platform sets its own), and the framing ones Node writes itself.
 */
export const TO_BUYER = new Set([
  'content-type',
  'content-language',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'retry-after',
  'x-request-id',
])

/**
 * Set on every answer of /paid/:id: an HTML answer runs no script and reaches no cookie of our origin; no type
 * sniffing.
 */
export const PAID_ANSWER_HEADERS = {
  'Content-Security-Policy': 'sandbox',
  'X-Content-Type-Options': 'nosniff',
} as const

/** Header names listed in a Connection header: hop-by-hop for this message (RFC 9110 §7.6.1). */
export function connectionNamed(value: string | string[] | null | undefined): Set<string> {
  const v = Array.isArray(value) ? value.join(',') : (value ?? '')
  return new Set(
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
}

/** The buyer's headers the upstream may see. */
export function toUpstream(h: IncomingHttpHeaders): Record<string, string> {
  const named = connectionNamed(h.connection)
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) {
    if (!TO_UPSTREAM.has(k) || named.has(k) || typeof v !== 'string') continue
    if (k === 'authorization' && /^Payment\s/i.test(v)) continue
    out[k] = v
  }
  return out
}

/** The upstream's headers the buyer may see. */
export function toBuyer(h: Headers): Record<string, string> {
  const named = connectionNamed(h.get('connection'))
  const out: Record<string, string> = {}
  h.forEach((v, k) => {
    if (TO_BUYER.has(k) && !named.has(k)) out[k] = v
  })
  return out
}

/**
 * A seller's answer as pay hands it to the agent (inside the JSON answer, never as headers of
 * ours): every end-to-end header, Set-Cookie included (the agent may keep a session with its
 * seller); hop-by-hop ones and those named in Connection dropped.
 */
export function endToEnd(h: Headers): Record<string, string> {
  const named = connectionNamed(h.get('connection'))
  const out: Record<string, string> = {}
  h.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v
  })
  return out
}
