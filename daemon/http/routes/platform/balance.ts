import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { platformParams } from './body.js'

const r = platformRoutes.balance

/** The agent's tokens on its network, and its native coin (0 on AA networks: the wallet holds no gas). */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const caller = await s.caller(c, 'owner')
    const agent = await s.ownedAgent(caller, platformParams(c, r.params).id)
    return c.json(await s.balance(agent))
  },
})
