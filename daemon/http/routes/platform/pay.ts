import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { platformBody, platformParams } from './body.js'

const r = platformRoutes.pay

/** Pays a 402-gated URL with the agent's wallet (x402 v2 and v1); limits and maxAmount before signing. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    const body = await platformBody(c, r.body)
    return c.json(await s.pay(agent, body))
  },
})
