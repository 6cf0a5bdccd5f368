import { listenMetrics, metricsServer } from '../metrics/server.js'
import type { Core } from './core.js'
import { closeServer, httpOrigin } from './http.js'

/**
 * Read when scraped, never polled: the store's rows, the leadership, each network's head; the --metrics-port listener
 * when set.
 */
export async function composeMetrics({
  metrics,
  store,
  log,
  leading,
  chains,
  config,
  life,
  urls,
}: Core): Promise<void> {
  metrics.observe({
    store,
    log,
    leading,
    heads: [
      ...Object.values(chains.evm).map((c) => ({
        network: c.key,
        head: async () => BigInt((await c.client.request({ method: 'eth_blockNumber' })) as string),
      })),
      { network: chains.solana.key, head: () => chains.solana.connection.getSlot() },
    ],
  })
  if (config.metrics.enabled && config.metrics.port !== undefined) {
    const ms = metricsServer(metrics)
    const port = await listenMetrics(ms, config.metrics.host, config.metrics.port)
    life.onStop(() => closeServer(ms))
    urls.metrics = `${httpOrigin(config.metrics.host, port)}/metrics`
  }
}
