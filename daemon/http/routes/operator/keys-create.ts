import { z } from 'zod'
import { route } from '../../route.js'
import { evmAddress } from '../../schemas.js'

const Body = z.object({
  name: z.string().trim().min(1, 'give the key a name').max(80),
  description: z.string().max(500).optional(),
  /** The wallet the key is bound to; absent: none (null), as for most operator keys. */
  owner: evmAddress.optional(),
})

/** Creates a partner key. The secret is in this response only; the store keeps its hash. */
export default route({
  method: 'POST',
  path: '/api/operator/keys',
  auth: 'operator',
  surface: 'keys',
  body: Body,
  status: 201,
  summary: 'create a partner key (its secret is in this answer only)',
  handler: async (c, s, { body }) => {
    const { key, record } = await s.create(body)
    return c.json({ key, ...record }, 201)
  },
})
