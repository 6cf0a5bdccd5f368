import { EvmOriginSubmitBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/**
 * The gasless evm-origin open: the user's signed order and permit, relayed by the solver as openFor (at most once per
 * order).
 */
export default route({
  method: 'POST',
  path: xchainPaths.evmSubmit,
  auth: 'partner',
  flow: 'xchain.evm-origin',
  surface: 'xchain',
  maxBody: 4 * 1024,
  body: EvmOriginSubmitBody,
  handler: async (c, s, { body }) => c.json(await s.submit('evm-origin', body.orderId, body)),
})
