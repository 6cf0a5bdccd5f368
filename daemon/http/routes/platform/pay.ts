import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.pay

/** Pays a 402-gated URL with the agent's wallet (x402 v2 and v1); limits and maxAmount before signing. */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.pay(agent, body))
})
