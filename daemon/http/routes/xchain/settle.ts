import { RailParams, SettleBody } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Operator: run an order's next steps now (deliver, attest, claim) instead of waiting for the worker's pass. */
export default route({
  method: 'POST',
  path: '/api/xchain/:rail/settle',
  auth: 'operator',
  surface: 'xchain',
  params: RailParams,
  body: SettleBody,
  handler: async (c, s, { params, body }) => c.json(await s.settle(params.rail, body.orderId)),
})
