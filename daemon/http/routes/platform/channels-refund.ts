import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.refundChannel

/**
 * Asks the channel's seller for the cooperative refund of the unspent deposit; what came back is read from the chain.
 */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.channels.refund(agent, params.channelId))
})
