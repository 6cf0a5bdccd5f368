import { createServer, type Server } from 'node:http'
import { isBaseError } from '../../src/errors/index.js'
import type { MetricsSurface } from './registry.js'

/**
 * The `--metrics-port` listener (config `metrics.port`, PARX_METRICS_PORT): GET /metrics without
 * a token, on `metrics.host` (127.0.0.1 unless set, not the API's host), for a Prometheus that
 * reaches this port and nothing else (a private interface, a sidecar). Everything else answers
 * 404. It is not started unless an operator sets the port: hosted, the default is the API port
 * behind the operator token.
 */
export function metricsServer(metrics: MetricsSurface): Server {
  return createServer((req, res) => {
    const json = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' || path !== '/metrics')
      return json(404, { error: 'this port serves GET /metrics only', code: 'NOT_FOUND' })
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType })
        res.end(body)
      },
      (e) =>
        json(
          isBaseError(e) ? e.status : 500,
          isBaseError(e) ? e.toJSON() : { error: 'internal error; the daemon log has the details', code: 'INTERNAL' },
        ),
    )
  })
}

/** Listens on `host:port` (0 picks a free one) and resolves with the port taken. */
export function listenMetrics(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve((server.address() as { port: number }).port))
  })
}
