import { z } from 'zod'
import { readNonces } from '../../../swap/user-state.js'
import { route } from '../../route.js'
import { evmAddress } from '../../schemas.js'

const Query = z.object({ owner: evmAddress })

/**
 * Not in SPEC: the nonces an order and its permit must carry, and chain time for the deadline, so
 * an integrator with only the API URL and a key can sign (the SDK uses it). K: tied to a wallet.
 */
export default route({
  method: 'GET',
  path: '/api/base/nonces',
  auth: 'partner',
  surface: 'swap',
  query: Query,
  handler: async (c, s, { query }) => c.json(await readNonces(s.base, query.owner)),
})
