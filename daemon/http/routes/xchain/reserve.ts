import { ReserveBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Internal (operator token): hold solver inventory on a network, counted like an open order's. */
export default route({
  method: 'POST',
  path: xchainPaths.reserve,
  auth: 'operator',
  surface: 'xchain',
  body: ReserveBody,
  handler: async (c, s, { body }) => c.json(await s.reserve({ ...body, amount: BigInt(body.amount) })),
})
