import { RailParams, RefundBody } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Operator: refund an expired lock to its user now (the worker sweeps them anyway). */
export default route({
  method: 'POST',
  path: '/api/xchain/:rail/refund',
  auth: 'operator',
  surface: 'xchain',
  params: RailParams,
  body: RefundBody,
  handler: async (c, s, { params, body }) => c.json(await s.refund(params.rail, body.orderId)),
})
