import { z } from 'zod'
import { route } from '../../route.js'
import { evmAddress } from '../../schemas.js'

const Query = z.object({ owner: evmAddress.optional() })

export default route({
  method: 'GET',
  path: '/api/operator/keys',
  auth: 'operator',
  surface: 'keys',
  query: Query,
  handler: async (c, s, { query }) => c.json({ keys: await s.list(query.owner) }),
})
