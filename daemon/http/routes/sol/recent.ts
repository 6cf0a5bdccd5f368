import { z } from 'zod'
import { recentSolSwaps } from '../../../sol/recent.js'
import { route } from '../../route.js'

const Query = z.object({
  limit: z.coerce
    .number({ invalid_type_error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(20),
})

/**
 * Open (docs/swap-api.md "Solana swaps"): what the service did on Solana lately; everything in it is public on chain.
 */
export default route({
  method: 'GET',
  path: '/api/sol/recent',
  auth: 'open',
  surface: 'sol',
  query: Query,
  handler: async (c, s, { query }) => c.json(await recentSolSwaps(s, query.limit)),
})
