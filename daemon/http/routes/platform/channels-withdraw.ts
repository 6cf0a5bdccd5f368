import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.withdrawChannel

/**
 * The payer's own withdrawal of a channel: the first call starts it on chain, one after the channel's delay finalizes
 * it.
 */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json(await s.channels.withdraw(agent, params.channelId))
})
