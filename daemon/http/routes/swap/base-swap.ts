import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { relaySwap } from '../../../swap/relay-swap.js'
import { route } from '../../route.js'
import { SWAP_MAX_BODY, swapBody } from './swap-body.js'

const Body = swapBody({ in: USDC, out: TOKEN_A })

/** Par swaps and entry buys (docs/swap-api.md "Routes"); the flow switch is per kind, so it is checked inside. */
export default route({
  method: 'POST',
  path: '/api/base/swap',
  auth: 'partner',
  surface: 'swap',
  maxBody: SWAP_MAX_BODY,
  body: Body,
  handler: async (c, s, { body }) => c.json(await relaySwap(s, body)),
})
