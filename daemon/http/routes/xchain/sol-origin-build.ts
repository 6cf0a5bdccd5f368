import { SolOriginBuildBody, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/**
 * docs/cross-chain.md "Cross-chain orders": the Solana lock, signed by the solver as fee payer; the user signs and
 * submits it.
 */
export default route({
  method: 'POST',
  path: xchainPaths.solBuild,
  auth: 'partner',
  flow: 'xchain.sol-origin',
  surface: 'xchain',
  maxBody: 4 * 1024,
  body: SolOriginBuildBody,
  handler: async (c, s, { body }) => c.json(await s.build('sol-origin', body)),
})
