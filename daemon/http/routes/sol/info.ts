import { z } from 'zod'
import { solInfo } from '../../../sol/info.js'
import { query } from '../../parse.js'
import { route } from '../../route.js'
import { solDeps } from './deps.js'

const Query = z.object({ net: z.string().optional() })

export default route({
  method: 'GET', path: '/api/sol/info', auth: 'open',
  handler: async (c, s) => c.json(await solInfo(solDeps(s), query(c, Query).net)),
})
