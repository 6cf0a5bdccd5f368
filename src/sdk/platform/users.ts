import { z } from 'zod'
import { evmAddress, isoTime, label, uuid } from './fields.js'

/** A user owns agents and seller endpoints; bound to an EVM wallet (SIWE login on the dashboard). */
export const user = z.object({
  id: uuid,
  /** null for a user created by script on the local profile without a wallet. */
  wallet: evmAddress.nullable(),
  name: z.string().nullable(),
  createdAt: isoTime,
  agents: z.number().int().nonnegative(),
  endpoints: z.number().int().nonnegative(),
})
export type User = z.infer<typeof user>

/** POST /api/operator/users (local profile, operator token): the non-browser way to get a user key. */
export const createUserBody = z.object({ wallet: evmAddress.optional(), name: label.optional() }).strict()
export type CreateUserBody = z.input<typeof createUserBody>

export const createdUser = z.object({
  user,
  /** `parx-u-...`, shown this once; the platform keeps only its hash. */
  userKey: z.string().regex(/^parx-u-[0-9a-f]{64}$/),
})
export type CreatedUser = z.infer<typeof createdUser>
