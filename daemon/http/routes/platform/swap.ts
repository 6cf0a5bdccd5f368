import { parseInput } from '../../../../src/sdk/parse-input.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { swapBodyFor } from '../../../../src/sdk/platform/wallet.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.swap

/**
 * docs/platform-api.md "POST /api/agents/:id/swap": AA Base networks only, three pairs; signed by the agent's wallet,
 * relayed by our swap service.
 */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  // The contract's body is checked by the app; what the agent's network offers (tokens, decimals) only here.
  return c.json(await s.swap(agent, parseInput(swapBodyFor(agent.network), body, 'body')))
})
