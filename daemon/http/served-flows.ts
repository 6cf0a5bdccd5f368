import { flowRoutes } from '../../src/config/flows.js'
import type { FlowName } from '../../src/config/schema.js'
import type { AnyRoute } from './route.js'

/** `POST /api/base/swap (in: USDC)` -> `POST /api/base/swap`; `{facilitator}` is mounted at /facilitator. */
const routeKey = (described: string) => {
  const [method = '', path = ''] = described.split(' ')
  return `${method} ${path.replace('{facilitator}', '/facilitator')}`
}

/**
 * A flow is served when the daemon registers the routes it governs. Capabilities report a flow
 * enabled only then: a flow switched on whose routes do not exist yet (cross-chain) would have
 * clients call routes that answer 404.
 */
export function servedFlows(routes: readonly AnyRoute[]): (flow: FlowName) => boolean {
  const registered = new Set(routes.map((r) => `${r.method} ${r.path}`))
  return (flow) => flowRoutes[flow].every((r) => registered.has(routeKey(r)))
}
