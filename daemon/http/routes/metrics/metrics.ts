import { route } from '../../route.js'

/**
 * Prometheus' scrape (docs/operations.md "Metrics"): behind the operator token on the API port.
 * `--metrics-port` serves the same exposition on a listener of its own (daemon/metrics/server.ts).
 */
export default route({
  method: 'GET',
  path: '/metrics',
  auth: 'operator',
  surface: 'metrics',
  contentType: 'text/plain',
  handler: async (c, s) => {
    const { contentType, body } = await s.scrape()
    return c.body(body, 200, { 'content-type': contentType })
  },
})
