import { z } from 'zod'
import { railSchema, RefundBody } from '../../../../src/sdk/xchain/wire.js'
import { jsonBody } from '../../parse.js'
import { route } from '../../route.js'
import { pathParams } from './params.js'

/** Operator: refund an expired lock to its user now (the worker sweeps them anyway). */
export default route({
  method: 'POST', path: '/api/xchain/:rail/refund', auth: 'operator', surface: 'xchain',
  handler: async (c, s) => {
    const { rail } = pathParams(c, z.object({ rail: railSchema }))
    return c.json(await s.refund(rail, (await jsonBody(c, RefundBody)).orderId))
  },
})
