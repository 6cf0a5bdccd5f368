import { route, type RouteDef } from '../../route.js'
import { readPayment } from './request.js'

/** POST /facilitator/verify: answers 200 with `{isValid, invalidReason?, invalidMessage?, payer}`; it never moves funds. */
const def: RouteDef = route({
  method: 'POST', path: '/facilitator/verify', auth: 'open', flow: 'facilitator',
  handler: async (c, s) => {
    const p = await readPayment(c, s, def)
    if ('reason' in p) return c.json({ isValid: false, invalidReason: p.reason, invalidMessage: p.message, payer: '' })
    return c.json(await s.facilitator.verify(p))
  },
})
export default def
