import { type Address, getAddress, isAddress } from 'viem'
import { z } from 'zod'

/**
 * Field schemas shared by every platform route. Amounts are decimal strings, never JSON numbers:
 * a float cannot carry 18 decimals, and "0.1" must mean exactly one tenth.
 */

/** A positive human decimal ("12.5"): no sign, exponent, separator or leading zeros. */
export const decimalAmount = z
  .string({ required_error: 'required', invalid_type_error: 'must be a decimal string like "12.5" (not a number)' })
  .trim()
  .refine(
    (v) => /^(0|[1-9]\d*)(\.\d+)?$/.test(v),
    'must be a decimal string like "12.5" (digits, one optional point; no sign or exponent)',
  )
  .refine((v) => /[1-9]/.test(v), 'must be greater than zero')

/** A dollar amount for limits: a positive decimal with at most 6 places (USDC precision). */
export const usdAmount = decimalAmount.refine(
  (v) => (v.split('.')[1] ?? '').length <= 6,
  'has more than 6 decimal places',
)

/**
 * An EVM address in any case, normalised to its checksum form; the zero address is refused (funds sent there are lost).
 */
export const evmAddress = z
  .string({ required_error: 'required', invalid_type_error: 'must be a string' })
  .trim()
  .refine((v) => isAddress(v, { strict: false }), 'not an EVM address (0x followed by 40 hex characters)')
  .transform((v) => getAddress(v) as Address)
  .refine((v) => !/^0x0{40}$/.test(v), 'is the zero address; tokens sent there are lost')

/**
 * A token symbol; case-insensitive on input, upper case after. Whether the network has it is checked against the
 * registry.
 */
export const tokenSymbol = z
  .string({ required_error: 'required', invalid_type_error: 'must be a string' })
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9]{1,15}$/, 'must be a token symbol like PUSD')
  .transform((v) => v.toUpperCase())

export const uuid = z.string().uuid('must be a UUID')

/** An http(s) URL with a host; anything else (file:, data:, javascript:) is refused. */
export const httpUrl = z
  .string({ required_error: 'required', invalid_type_error: 'must be a string' })
  .trim()
  .max(2048, 'is longer than 2048 characters')
  .refine((v) => {
    try {
      const u = new URL(v)
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
    } catch {
      return false
    }
  }, 'must be an http:// or https:// URL')

/** A short human label (agent name, key label, endpoint name). */
export const label = z
  .string({ required_error: 'required', invalid_type_error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'is longer than 64 characters')
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters')

/** A host name for a limit allow-list: lower case, no scheme, path or port. */
export const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (v) =>
      /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(v) && v.length <= 253,
    'must be a host name like api.example.com or *.example.com (no scheme, path or port)',
  )

export const isoTime = z.string().datetime({ offset: true })
export const hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'must be 0x-prefixed hex')
export const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte transaction hash')
