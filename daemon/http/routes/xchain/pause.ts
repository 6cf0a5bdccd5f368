import { PauseBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Operator: stop new deliveries and/or claims (both by default); expired orders are still refunded. */
export default route({
  method: 'POST',
  path: xchainPaths.pause,
  auth: 'operator',
  surface: 'xchain',
  body: PauseBody,
  handler: async (c, s, { body }) => c.json({ paused: await s.pause(body) }),
})
