import { StatusParams, StatusQuery, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/**
 * docs/cross-chain.md "Cross-chain orders": where an order stands, read live on its origin chain and reconciled with
 * the solver's records.
 */
export default route({
  method: 'GET',
  path: xchainPaths.status,
  auth: 'partner',
  surface: 'xchain',
  params: StatusParams,
  query: StatusQuery,
  handler: async (c, s, { params, query }) => c.json(await s.status(params.orderId, query.rail)),
})
