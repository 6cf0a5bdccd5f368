import { route } from '../../route.js'
import { PaymentBody, readPayment } from './request.js'

/**
 * POST /facilitator/verify: answers 200 with `{isValid, invalidReason?, invalidMessage?, payer}`; it never moves funds.
 */
const def = route({
  method: 'POST',
  path: '/facilitator/verify',
  auth: 'open',
  surface: 'facilitator',
  flow: 'facilitator',
  body: PaymentBody,
  handler: async (c, s, { body }) => {
    const p = await readPayment(c, body, s.auth)
    if ('reason' in p) return c.json({ isValid: false, invalidReason: p.reason, invalidMessage: p.message, payer: '' })
    return c.json(await s.service.verify(p))
  },
})
export default def
