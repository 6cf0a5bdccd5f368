import { z } from 'zod'
import { solInfo } from '../../../sol/info.js'
import { query } from '../../parse.js'
import { route } from '../../route.js'

const Query = z.object({ net: z.string().optional() })

export default route({
  method: 'GET', path: '/api/sol/info', auth: 'open', surface: 'sol',
  handler: async (c, s) => c.json(await solInfo(s, query(c, Query).net)),
})
