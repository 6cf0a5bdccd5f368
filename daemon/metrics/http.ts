import type { Context, Next } from 'hono'
import { Histogram, type Registry } from 'prom-client'

/** What the app records of each answer (daemon/http/app.ts). */
export type HttpRecorder = {
  /** `route` is the route table's template (`/api/agents/:id`), never the URL asked for. */
  request(labels: { method: string; route: string; status: number; surface: string }, seconds: number): void
}

/** HTTP answers by route template, method, status and surface: `parx_http_request_duration_seconds`. */
export function httpMetrics(registry: Registry): HttpRecorder {
  const h = new Histogram({
    name: 'parx_http_request_duration_seconds',
    help: 'HTTP requests answered, by route template, method, status and surface, and how long they took',
    labelNames: ['method', 'route', 'status', 'surface'] as const,
    // Routes answer from sub-millisecond reads to multi-second settlements.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  return {
    request: (l, seconds) =>
      h.observe({ method: l.method, route: l.route, status: String(l.status), surface: l.surface }, seconds),
  }
}

/** What a matched route tells the timing middleware about itself (set by the route's handler in daemon/http/app.ts). */
export type MatchedRoute = { path: string; surface: string }

/** A request that matched no route is counted under these, so a scan of made-up URLs adds no series. */
const UNMATCHED: MatchedRoute = { path: 'unmatched', surface: 'none' }

/**
 * Times every answer of the app, 404s, auth failures and 429s included (the error handler has
 * turned them into answers by the time `next` returns).
 */
export function httpTimingMiddleware(rec: HttpRecorder) {
  return async (c: Context, next: Next): Promise<void> => {
    const t0 = performance.now()
    try {
      await next()
    } finally {
      const r = (c.get('route') as MatchedRoute | undefined) ?? UNMATCHED
      rec.request(
        { method: c.req.method, route: r.path, status: c.res.status, surface: r.surface },
        (performance.now() - t0) / 1000,
      )
    }
  }
}

/** Tells the timing middleware which route answered (its template and surface). */
export const markRoute = (c: Context, r: MatchedRoute): void => c.set('route', r)
