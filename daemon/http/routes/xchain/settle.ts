import { z } from 'zod'
import { railSchema, SettleBody } from '../../../../src/sdk/xchain/wire.js'
import { jsonBody } from '../../parse.js'
import { route } from '../../route.js'
import { pathParams } from './params.js'

/** Operator: run an order's next steps now (deliver, attest, claim) instead of waiting for the worker's pass. */
export default route({
  method: 'POST', path: '/api/xchain/:rail/settle', auth: 'operator', surface: 'xchain',
  handler: async (c, s) => {
    const { rail } = pathParams(c, z.object({ rail: railSchema }))
    return c.json(await s.settle(rail, (await jsonBody(c, SettleBody)).orderId))
  },
})
