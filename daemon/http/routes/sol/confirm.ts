import { z } from 'zod'
import { isBase58Of } from '../../../../src/sdk/solana/encoded-size.js'
import { confirmSol } from '../../../sol/confirm.js'
import { route } from '../../route.js'

const signature = z
  .string({ required_error: 'required' })
  .refine((v) => isBase58Of(v, 64), 'not a Solana transaction signature (base58, 64 bytes)')

const Query = z.object({ sig: signature })

export default route({
  method: 'GET',
  path: '/api/sol/confirm',
  auth: 'partner',
  surface: 'sol',
  query: Query,
  handler: async (c, s, { query }) => c.json(await confirmSol(s, query.sig)),
})
