import { z } from 'zod'
import type { SolSwapRequest } from '../../../sol/build-swap.js'
import { solanaAddress, uiAmount } from '../../schemas.js'
import { required } from '../swap/swap-body.js'

const U64_MAX = 2n ** 64n - 1n

/** docs/swap-api.md "Solana swaps": { net, user, uiAmount, in, out }; `in` and `out` default per route. */
export const solSwapBody = (defaults: { in: string; out: string }) =>
  z
    .object({
      net: z.string().optional(),
      user: solanaAddress,
      uiAmount: required(uiAmount),
      in: z.string().min(1).default(defaults.in),
      out: z.string().min(1).default(defaults.out),
      /** Not in SPEC: a redemption can pass its quote's minOutBase to refuse a worse price. */
      minOutBase: z
        .string()
        .regex(/^\d{1,20}$/, 'must be a decimal string of base units, e.g. "995000"')
        .transform((v) => BigInt(v))
        .refine((v) => v <= U64_MAX, 'exceeds u64')
        .optional(),
    })
    .transform((b): SolSwapRequest => b)

/** A swap request is a few hundred bytes. */
export const SOL_SWAP_MAX_BODY = 4 * 1024
