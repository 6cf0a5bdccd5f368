import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { buildSolSwap } from '../../../sol/build-swap.js'
import { route } from '../../route.js'
import { SOL_SWAP_MAX_BODY, solSwapBody } from './swap-body.js'

const Body = solSwapBody({ in: USDC, out: TOKEN_A })

/**
 * docs/swap-api.md "Solana swaps": a base64 transaction the solver built and co-signed; the user signs and submits it.
 */
export default route({
  method: 'POST',
  path: '/api/sol/swap',
  auth: 'partner',
  surface: 'sol',
  maxBody: SOL_SWAP_MAX_BODY,
  body: Body,
  handler: async (c, s, { body }) => c.json(await buildSolSwap(s, body)),
})
