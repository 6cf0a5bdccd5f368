import { route } from '../../route.js'

/** GET /facilitator/supported: open on every profile (docs/facilitator.md "x402 facilitator"). */
export default route({
  method: 'GET',
  path: '/facilitator/supported',
  auth: 'open',
  surface: 'facilitator',
  handler: (c, s) => c.json(s.service.supported()),
})
