import { route } from '../../route.js'

/** The name sellers see in GET /facilitator/health (docs/facilitator.md "x402 facilitator"). */
export const FACILITATOR_SERVICE = 'parx-facilitator'

export default route({
  method: 'GET',
  path: '/facilitator/health',
  auth: 'open',
  surface: 'facilitator',
  handler: (c) => c.json({ status: 'ok', service: FACILITATOR_SERVICE }),
})
