import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { buildSolSwap } from '../../../sol/build-swap.js'
import { jsonBody } from '../../parse.js'
import { route } from '../../route.js'
import { SOL_SWAP_MAX_BODY, solSwapBody } from './swap-body.js'

const Body = solSwapBody({ in: TOKEN_A, out: USDC })

/** Same payload and pipeline as /api/sol/swap; only the defaults of `in` and `out` differ. */
export default route({
  method: 'POST', path: '/api/sol/redeem', auth: 'partner', surface: 'sol', maxBody: SOL_SWAP_MAX_BODY,
  handler: async (c, s) => c.json(await buildSolSwap(s, await jsonBody(c, Body, SOL_SWAP_MAX_BODY))),
})
