import { ReserveBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { jsonBody } from '../../parse.js'
import { route } from '../../route.js'

/** Internal (operator token): hold solver inventory on a network, counted like an open order's. */
export default route({
  method: 'POST', path: xchainPaths.reserve, auth: 'operator', surface: 'xchain',
  handler: async (c, s) => {
    const b = await jsonBody(c, ReserveBody)
    return c.json(await s.reserve({ ...b, amount: BigInt(b.amount) }))
  },
})
