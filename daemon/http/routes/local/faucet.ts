import { z } from 'zod'
import { BaseError } from '../../../../src/errors/index.js'
import { route } from '../../route.js'
import { uiAmount } from '../../schemas.js'

const Body = z.object({
  network: z.string().optional(),
  to: z.string({ required_error: 'required' }).min(1),
  token: z.string().default('USDC'),
  amount: uiAmount.default('1000'),
})

/** Test money for any address, on the local profile only (the chains are ours). */
export default route({
  method: 'POST',
  path: '/api/local/faucet',
  auth: 'open',
  surface: 'faucet',
  flow: 'faucet',
  body: Body,
  handler: async (c, s, { body }) => {
    if (!s.faucet)
      throw new BaseError('PROFILE_ONLY', `the faucet exists only on the local profile; this daemon runs ${s.profile}`)
    const network = body.network ?? s.defaultNetwork
    const { tx } = await s.faucet.mint({ network, to: body.to, token: body.token.toUpperCase(), amount: body.amount })
    return c.json({ network, to: body.to, token: body.token.toUpperCase(), amount: body.amount, tx })
  },
})
