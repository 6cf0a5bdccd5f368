import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { relaySwap } from '../../../swap/relay-swap.js'
import { route } from '../../route.js'
import { SWAP_MAX_BODY, swapBody } from './swap-body.js'

const Body = swapBody({ in: TOKEN_A, out: USDC })

/**
 * Redemptions (docs/swap-api.md "Redemptions"): order.minOutputAmount is the quote's minOutBase. Same pipeline as the
 * swap route; only the defaults of `in` and `out` differ.
 */
export default route({
  method: 'POST',
  path: '/api/base/redeem',
  auth: 'partner',
  surface: 'swap',
  maxBody: SWAP_MAX_BODY,
  body: Body,
  handler: async (c, s, { body }) => c.json(await relaySwap(s, body)),
})
