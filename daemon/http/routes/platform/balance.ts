import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.balance

/** The agent's tokens on its network, and its native coin (0 on AA networks: the wallet holds no gas). */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.balance(agent))
})
