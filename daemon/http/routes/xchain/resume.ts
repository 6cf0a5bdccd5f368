import { xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Operator: the solver delivers and claims again. */
export default route({
  method: 'POST',
  path: xchainPaths.resume,
  auth: 'operator',
  surface: 'xchain',
  handler: async (c, s) => c.json({ paused: await s.resume() }),
})
