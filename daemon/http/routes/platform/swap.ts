import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { swapBodyFor } from '../../../../src/sdk/platform/wallet.js'
import { route } from '../../route.js'
import { platformBody, platformParams } from './body.js'

const r = platformRoutes.swap

/** SPEC §4.5: AA Base networks only, three pairs; signed by the agent's wallet, relayed by our swap service. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    const body = await platformBody(c, swapBodyFor(agent.network))
    return c.json(await s.swap(agent, body))
  },
})
