import { PublicKey } from '@solana/web3.js'
import { z } from 'zod'
import { solBalance } from '../../../sol/balance.js'
import { route } from '../../route.js'
import { solanaAddress } from '../../schemas.js'

const Query = z.object({ owner: solanaAddress, net: z.string().optional() })

export default route({
  method: 'GET',
  path: '/api/sol/balance',
  auth: 'open',
  surface: 'sol',
  query: Query,
  handler: async (c, s, { query: q }) => {
    return c.json(await solBalance(s, new PublicKey(q.owner), q.net))
  },
})
