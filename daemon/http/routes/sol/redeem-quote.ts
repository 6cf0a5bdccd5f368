import { z } from 'zod'
import { TOKEN_A } from '../../../../src/networks/registry.js'
import { solRedeemQuote } from '../../../sol/redeem-quote.js'
import { route } from '../../route.js'
import { uiAmount } from '../../schemas.js'
import { required } from '../swap/swap-body.js'

const Query = z.object({
  net: z.string().optional(),
  in: z.string().min(1).default(TOKEN_A),
  amount: required(uiAmount),
})

/**
 * docs/swap-api.md "Solana swaps": the Solana counterpart of the redeem quote, priced from the solver's live inventory.
 */
export default route({
  method: 'GET',
  path: '/api/sol/redeem/quote',
  auth: 'partner',
  surface: 'sol',
  flow: 'sol.redeem',
  query: Query,
  handler: async (c, s, { query }) => c.json(await solRedeemQuote(s, query)),
})
