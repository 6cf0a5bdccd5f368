import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.showReceipt

/** One settled pay's signed receipt; NOT_FOUND for another agent's payment exactly as for one that has none. */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  const receipt = await s.receipts.store.get(agent.id, params.paymentId)
  if (!receipt)
    throw new BaseError(
      'NOT_FOUND',
      `no receipt for payment ${params.paymentId} of this agent (only settled pays have one)`,
    )
  return c.json(receipt)
})
