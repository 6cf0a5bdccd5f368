import { z } from 'zod'
import { solInfo } from '../../../sol/info.js'
import { route } from '../../route.js'

const Query = z.object({ net: z.string().optional() })

export default route({
  method: 'GET',
  path: '/api/sol/info',
  auth: 'open',
  surface: 'sol',
  query: Query,
  handler: async (c, s, { query }) => c.json(await solInfo(s, query.net)),
})
