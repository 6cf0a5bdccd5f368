import { z } from 'zod'
import { query } from '../../parse.js'
import { evmAddress } from '../../schemas.js'
import { route } from '../../route.js'

const Query = z.object({ owner: evmAddress.optional() })

export default route({
  method: 'GET', path: '/api/operator/keys', auth: 'operator', surface: 'keys',
  handler: async (c, s) => c.json({ keys: await s.list(query(c, Query).owner) }),
})
