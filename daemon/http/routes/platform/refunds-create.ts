import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.refundPayment

/** A seller returns a captured auth-capture payment of one of its endpoints (daemon/seller/endpoint-refund.ts). */
export default platformRoute(r, async (c, s, { body, caller }) => c.json(await s.refundPayment(s.userOf(caller), body)))
