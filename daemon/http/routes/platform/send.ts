import { parseInput } from '../../../../src/sdk/parse-input.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { sendBodyFor } from '../../../../src/sdk/platform/wallet.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.send

/** A sponsored user operation on AA networks, a plain transfer on direct ones; limits first (daemon/buyer/send.ts). */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  // The contract's body is checked by the app; what the agent's network offers (tokens, decimals) only here.
  return c.json(await s.send(agent, parseInput(sendBodyFor(agent.network), body, 'body')))
})
