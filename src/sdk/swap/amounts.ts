import { BaseError } from '../../errors/index.js'

/**
 * Par rescale between decimals. Refuses rather than rounds: a par swap that dropped the input's
 * last digits would take more than it pays.
 */
export function rescaleExact(amount: bigint, fromDecimals: number, toDecimals: number, field = 'amount'): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals)
  const unit = 10n ** BigInt(fromDecimals - toDecimals)
  if (amount % unit !== 0n) {
    throw new BaseError(
      'BAD_REQUEST',
      `${field} has more than ${toDecimals} decimal places, the output token's ` +
        `precision: a par swap would lose the rest; round it to ${toDecimals} decimals`,
    )
  }
  return amount / unit
}

/** Rescale rounding down: what a priced (non-par) route compares against par. */
export function rescaleDown(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  return toDecimals >= fromDecimals
    ? amount * 10n ** BigInt(toDecimals - fromDecimals)
    : amount / 10n ** BigInt(fromDecimals - toDecimals)
}
