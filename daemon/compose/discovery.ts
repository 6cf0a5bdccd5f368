import { type DiscoveryService, discoveryService } from '../discovery/service.js'
import type { Drainable } from '../http/drain.js'
import { routes } from '../http/routes/index.js'
import { servedFlows } from '../http/served-flows.js'
import type { Core } from './core.js'

/** What the daemon says about itself: capabilities, config, readiness, the OpenAPI document. */
export function composeDiscovery(
  { config, gaps, flowEnabled, base, radius, chains, accounts, urls, store, leading }: Core,
  http: Drainable,
): DiscoveryService {
  return discoveryService({
    config,
    gaps,
    served: servedFlows(routes),
    flowEnabled,
    base,
    radius,
    evm: chains.evm,
    solana: chains.solana,
    accounts,
    urls,
    pingStore: () => store.ping(),
    draining: () => http.draining,
    // Loaded on first use: the generator and the document stay out of the daemon's start.
    openApi: async () => (await import('../http/openapi/served.js')).servedDocument(routes),
    process: {
      role: config.role,
      hosted: Boolean(config.store.url),
      leading: config.role === 'api' ? undefined : leading,
    },
  })
}
