import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { sendBodyFor } from '../../../../src/sdk/platform/wallet.js'
import { route } from '../../route.js'
import { platformBody, platformParams } from './body.js'

const r = platformRoutes.send

/** A sponsored user operation on AA networks, a plain transfer on direct ones; limits first (daemon/platform/send.ts). */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    const body = await platformBody(c, sendBodyFor(agent.network))
    return c.json(await s.send(agent, body))
  },
})
