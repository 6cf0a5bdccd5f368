import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.createAgent

/** A new agent with a new wallet, its key sealed in the store (never returned). */
export default platformRoute(r, async (c, s, { body, caller }) => {
  return c.json(await s.agents.create(s.userOf(caller), body))
})
