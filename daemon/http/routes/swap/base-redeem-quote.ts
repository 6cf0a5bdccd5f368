import { z } from 'zod'
import { TOKEN_A, USDC } from '../../../../src/networks/registry.js'
import { toBaseUnits } from '../../../../src/sdk/units.js'
import { resolvePair } from '../../../swap/pairs.js'
import { checkRedeemable, planRedeem, quoteBody } from '../../../swap/redeem-quote.js'
import { route } from '../../route.js'
import { uiAmount } from '../../schemas.js'
import { required } from './swap-body.js'

const Query = z.object({ in: z.string().min(1).default(TOKEN_A), amount: required(uiAmount) })

/**
 * docs/swap-api.md "Redemptions": priced from live pool depth and solver inventory; fetch it immediately before
 * signing.
 */
export default route({
  method: 'GET',
  path: '/api/base/redeem/quote',
  auth: 'partner',
  surface: 'swap',
  flow: 'base.redeem',
  query: Query,
  handler: async (c, s, { query: q }) => {
    const pair = resolvePair(s.base, q.in, USDC)
    const plan = await planRedeem(s, pair.input, pair.output, toBaseUnits(q.amount, pair.input.decimals, 'amount'))
    checkRedeemable(s, plan, 'amount')
    return c.json(quoteBody(s, plan))
  },
})
