import { flowRoutes } from '../../../../src/config/flows.js'
import { surfaceGaps } from '../../../../src/config/problems.js'
import { flowNames } from '../../../../src/config/schema.js'
import { route } from '../../route.js'

export default route({
  method: 'GET', path: '/api/capabilities', auth: 'open',
  handler: (c, s) => {
    // A surface missing a contract address is off with the setting that turns it on (README "Pointing at real networks").
    const gaps = surfaceGaps(s.config)
    return c.json({
      profile: s.config.profile,
      flows: Object.fromEntries(flowNames.map((f) => [f, { enabled: s.flowEnabled(f), routes: flowRoutes[f], ...(gaps[f] ? { reason: gaps[f] } : {}) }])),
    })
  },
})
