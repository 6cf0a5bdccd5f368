import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { SwapRequest } from '../../../swap/relay-swap.js'
import { uiAmount } from '../../schemas.js'

const MAX_UINT256 = 2n ** 256n - 1n

/**
 * An EVM address in any case, kept lower-case: the checks compare case-insensitively, and
 * checksumming every field of every request would hash each one for nothing.
 */
const evmAddress = z
  .string({ required_error: 'required' })
  .regex(/^0x[0-9a-fA-F]{40}$/, 'not an EVM address (0x followed by 40 hex characters)')
  .transform((v) => v.toLowerCase() as Address)

/** A union reports a missing value as 'invalid input'; this makes it 'missing field' like any other. */
export const required = <S extends z.ZodTypeAny>(schema: S) =>
  z
    .unknown()
    .superRefine((v, ctx) => {
      if (v === undefined)
        ctx.addIssue({
          code: 'invalid_type',
          expected: 'string',
          received: 'undefined',
          message: 'required',
          fatal: true,
        })
    })
    .pipe(schema)

/** A uint256 as a decimal string (numbers are accepted while they are exact). */
const uint = required(
  z
    .union(
      [
        z.string().regex(/^\d{1,78}$/, 'must be a decimal string of digits, e.g. "1000000"'),
        z
          .number()
          .int('must be a whole number')
          .nonnegative('must not be negative')
          .refine(Number.isSafeInteger, 'too large for a JSON number: send it as a decimal string'),
      ],
      { required_error: 'required', invalid_type_error: 'must be a decimal string of digits' },
    )
    .transform((v) => BigInt(v))
    .refine((v) => v <= MAX_UINT256, 'exceeds uint256'),
)

const hex = (bytes: number | 'any', what: string) =>
  z
    .string({ required_error: 'required' })
    .regex(bytes === 'any' ? /^0x(?:[0-9a-fA-F]{2}){1,2048}$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`), what)
    .transform((v) => v as Hex)

const Order = z.object(
  {
    user: evmAddress,
    inputToken: evmAddress,
    inputAmount: uint,
    outputToken: evmAddress,
    minOutputAmount: uint,
    solver: evmAddress,
    deadline: uint,
    nonce: uint,
  },
  { required_error: 'required', invalid_type_error: 'must be an object with the RfqOrder fields' },
)

/** docs/swap-api.md "Routes" (the body); `in` and `out` default per route. */
export const swapBody = (defaults: { in: string; out: string }) =>
  z
    .object({
      user: evmAddress,
      uiAmount: required(uiAmount),
      in: z.string().min(1).default(defaults.in),
      out: z.string().min(1).default(defaults.out),
      order: Order,
      orderSig: hex('any', 'not a hex signature (0x followed by an even number of hex digits)'),
      v: z
        .number({ required_error: 'required', invalid_type_error: 'must be a number (27 or 28)' })
        .int()
        .refine((v) => [0, 1, 27, 28].includes(v), 'must be 27 or 28'),
      r: hex(32, 'must be 32 bytes of hex (0x followed by 64 hex digits)'),
      s: hex(32, 'must be 32 bytes of hex (0x followed by 64 hex digits)'),
    })
    .transform((b): SwapRequest => ({ ...b, v: b.v < 27 ? b.v + 27 : b.v }))

/** A signed order is well under 2 KiB; anything far larger is not a swap. */
export const SWAP_MAX_BODY = 16 * 1024
