import { StatusParams, StatusQuery, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { query } from '../../parse.js'
import { route } from '../../route.js'
import { pathParams } from './params.js'

/** SPEC §2.7, §4.3: where an order stands, read live on its origin chain and reconciled with the solver's records. */
export default route({
  method: 'GET', path: xchainPaths.status, auth: 'partner', surface: 'xchain',
  handler: async (c, s) => {
    const { orderId } = pathParams(c, StatusParams)
    return c.json(await s.status(orderId, query(c, StatusQuery).rail))
  },
})
