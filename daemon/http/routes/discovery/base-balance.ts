import { z } from 'zod'
import { baseBalance } from '../../../swap/base-balance.js'
import { route } from '../../route.js'
import { evmAddress } from '../../schemas.js'

const Query = z.object({ owner: evmAddress })

export default route({
  method: 'GET',
  path: '/api/base/balance',
  auth: 'open',
  surface: 'swap',
  query: Query,
  handler: async (c, s, { query }) => c.json(await baseBalance(s, query.owner)),
})
