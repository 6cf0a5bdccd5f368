import { BaseError } from '../errors/index.js'

/**
 * The largest amount each ledger can hold: an EVM uint256 (balances, supplies) and a Solana u64 (lamports, SPL
 * amounts).
 */
export const UINT256_MAX = 2n ** 256n - 1n
export const U64_MAX = 2n ** 64n - 1n

/**
 * Refuses, before anything is sent, an amount the ledger would overflow on: `held + adding` must
 * stay within `max` (an SPL mint wraps nothing, but a u64 cast would; a uint256 mint reverts).
 */
export function assertFits(p: { adding: bigint; held?: bigint; max: bigint; what: string }): void {
  const held = p.held ?? 0n
  if (p.adding > p.max || held + p.adding > p.max) {
    const room = p.max - held > 0n ? p.max - held : 0n
    throw new BaseError(
      'AMOUNT_OUT_OF_RANGE',
      `amount is out of range: ${p.what} can hold at most ${p.max} base units, ${room} more now; ask for less`,
    )
  }
}
