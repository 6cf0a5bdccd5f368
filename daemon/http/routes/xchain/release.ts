import { ReleaseBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Internal (operator token): free a reservation made with POST /api/reserve (or an order's, by its id). */
export default route({
  method: 'POST',
  path: xchainPaths.release,
  auth: 'operator',
  surface: 'xchain',
  body: ReleaseBody,
  handler: async (c, s, { body }) => c.json(await s.release(body.id)),
})
