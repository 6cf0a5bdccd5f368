import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.listReceipts

/** The agent's signed receipts, newest first, keyset-paged; its own key or its user's. */
export default platformRoute(r, async (c, s, { params, query, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.receipts.store.page(agent.id, query))
})
