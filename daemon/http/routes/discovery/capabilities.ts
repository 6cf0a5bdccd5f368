import { flowRoutes } from '../../../../src/config/flows.js'
import { flowNames } from '../../../../src/config/schema.js'
import { route } from '../../route.js'

export default route({
  method: 'GET', path: '/api/capabilities', auth: 'open',
  handler: (c, s) =>
    c.json({
      profile: s.config.profile,
      flows: Object.fromEntries(flowNames.map((f) => [f, { enabled: s.flowEnabled(f), routes: flowRoutes[f] }])),
    }),
})
