import { EvmOriginBuildBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/**
 * docs/cross-chain.md "Cross-chain orders": the Base SourceEscrow order, with the gasless typed data (order + permit)
 * and the plain approve + open calls.
 */
export default route({
  method: 'POST',
  path: xchainPaths.evmBuild,
  auth: 'partner',
  flow: 'xchain.evm-origin',
  surface: 'xchain',
  maxBody: 4 * 1024,
  body: EvmOriginBuildBody,
  handler: async (c, s, { body }) => c.json(await s.build('evm-origin', body)),
})
