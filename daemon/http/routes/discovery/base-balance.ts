import { z } from 'zod'
import { baseBalance } from '../../../swap/base-balance.js'
import { query } from '../../parse.js'
import { evmAddress } from '../../schemas.js'
import { route } from '../../route.js'

const Query = z.object({ owner: evmAddress })

export default route({
  method: 'GET', path: '/api/base/balance', auth: 'open', surface: 'swap',
  handler: async (c, s) => c.json(await baseBalance(s, query(c, Query).owner)),
})
