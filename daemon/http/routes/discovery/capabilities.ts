import { flowRoutes } from '../../../../src/config/flows.js'
import { flowNames, type FlowName } from '../../../../src/config/schema.js'
import { route } from '../../route.js'
import { servedFlows } from '../../served-flows.js'
import { routes } from '../index.js'

let served: ((flow: FlowName) => boolean) | undefined

export default route({
  method: 'GET', path: '/api/capabilities', auth: 'open',
  handler: (c, s) => {
    // Built on first use: the route table imports this file, so it is complete only after loading.
    served ??= servedFlows(routes)
    const flow = (f: FlowName) => {
      if (!served!(f)) return { enabled: false, routes: flowRoutes[f], reason: 'not served by this version of parx yet: its routes are not registered' }
      if (!s.flowEnabled(f)) {
        const reason = f === 'faucet' && s.config.profile !== 'local' ? 'the faucet exists only on the local profile' : 'disabled in the configuration (serve.flows)'
        return { enabled: false, routes: flowRoutes[f], reason }
      }
      return { enabled: true, routes: flowRoutes[f] }
    }
    return c.json({ profile: s.config.profile, flows: Object.fromEntries(flowNames.map((f) => [f, flow(f)])) })
  },
})
