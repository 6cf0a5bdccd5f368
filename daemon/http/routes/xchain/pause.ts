import { PauseBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { jsonBody } from '../../parse.js'
import { route } from '../../route.js'

/** Operator: stop new deliveries (and claims unless `claims: false`); expired orders are still refunded. */
export default route({
  method: 'POST', path: xchainPaths.pause, auth: 'operator', surface: 'xchain',
  handler: async (c, s) => {
    const text = await c.req.raw.clone().text()
    const body = text.trim() === '' ? PauseBody.parse(undefined) : await jsonBody(c, PauseBody)
    return c.json({ paused: await s.pause(body) })
  },
})
