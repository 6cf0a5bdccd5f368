import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { buildSolSwap } from '../../../sol/build-swap.js'
import { route } from '../../route.js'
import { SOL_SWAP_MAX_BODY, solSwapBody } from './swap-body.js'

const Body = solSwapBody({ in: TOKEN_A, out: USDC })

/** Same payload and pipeline as /api/sol/swap; only the defaults of `in` and `out` differ. */
export default route({
  method: 'POST',
  path: '/api/sol/redeem',
  auth: 'partner',
  surface: 'sol',
  maxBody: SOL_SWAP_MAX_BODY,
  body: Body,
  handler: async (c, s, { body }) => c.json(await buildSolSwap(s, body)),
})
