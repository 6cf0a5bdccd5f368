import { PublicKey } from '@solana/web3.js'
import { type Address, getAddress, isAddress } from 'viem'
import { z } from 'zod'
import { isBase58Of } from '../../src/sdk/solana/encoded-size.js'

/** An EVM address in any case; normalised to its checksum form. */
export const evmAddress = z
  .string({ required_error: 'required' })
  .refine((v) => isAddress(v, { strict: false }), 'not an EVM address (0x followed by 40 hex characters)')
  .transform((v) => getAddress(v) as Address)

/** A Solana public key (base58, 32 bytes). */
export const solanaAddress = z.string({ required_error: 'required' }).refine((v) => {
  // Bounded first: decoding base58 is quadratic in its length.
  if (!isBase58Of(v, 32)) return false
  return new PublicKey(v).toBase58() === v
}, 'not a Solana public key (base58, 32 bytes)')

/** A human decimal amount: string preferred, number accepted; kept as the exact string. */
export const uiAmount = z
  .union([z.string(), z.number()])
  .transform((v) => (typeof v === 'number' ? numberToPlain(v) : v.trim()))
  .refine((v) => /^\d+(\.\d+)?$/.test(v), 'must be a positive decimal like "12.5"')
  .refine((v) => /[1-9]/.test(v), 'must be greater than zero')

/** Numbers print as 1e-7 below 1e-6; write them out so no digit is invented or lost. */
function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) return 'NaN'
  const s = String(n)
  return s.includes('e') ? n.toFixed(20).replace(/\.?0+$/, '') : s
}
