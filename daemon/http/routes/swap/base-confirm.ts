import type { Hex } from 'viem'
import { z } from 'zod'
import { confirmTransaction } from '../../../swap/confirm.js'
import { route } from '../../route.js'

const Query = z.object({
  hash: z
    .string({ required_error: 'required' })
    .regex(/^0x[0-9a-fA-F]{64}$/, 'not a transaction hash (0x followed by 64 hex characters)'),
})

/** Inclusion of a relayed swap; the solver's sender lets it tell a dropped transaction from a replaced one. */
export default route({
  method: 'GET',
  path: '/api/base/confirm',
  auth: 'partner',
  surface: 'swap',
  query: Query,
  handler: async (c, s, { query }) => c.json(await confirmTransaction(s.base, query.hash as Hex, s.sender, s.outbox)),
})
