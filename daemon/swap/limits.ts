import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'

/**
 * Size limits are configured in USD; every partner stable and USDC count at par, so a limit is the
 * same number of whole tokens, compared exactly in base units.
 */
export function usdToUnits(usd: number, decimals: number): bigint {
  const key = `${usd}:${decimals}`
  let units = memo.get(key)
  if (units === undefined) {
    const plain = usd.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })
    const [whole, frac = ''] = plain.split('.')
    memo.set(key, (units = toBaseUnits(frac ? `${whole}.${frac.slice(0, decimals)}` : whole!, decimals)))
  }
  return units
}

// Limits are a handful of config numbers, and toLocaleString is costly on a path taken per swap.
const memo = new Map<string, bigint>()

/** The par route's per-swap cap (`max` of /api/base/info); null means none. */
export function checkParSize(amount: bigint, decimals: number, symbol: string, maxUsd: number | null): void {
  if (maxUsd === null || amount <= usdToUnits(maxUsd, decimals)) return
  throw new BaseError(
    'AMOUNT_TOO_LARGE',
    `uiAmount ${fromBaseUnits(amount, decimals)} ${symbol} is above the per-swap limit max = ` +
      `${maxUsd} (see /api/base/info): reduce the size, e.g. split it into swaps of at most ${maxUsd}`,
  )
}

/** The redemption ceiling (`hardMaxUsd` of the quote). */
export function checkRedeemCeiling(
  amount: bigint,
  decimals: number,
  symbol: string,
  hardMaxUsd: number,
  field = 'uiAmount',
): void {
  if (amount <= usdToUnits(hardMaxUsd, decimals)) return
  throw new BaseError(
    'AMOUNT_TOO_LARGE',
    `${field} ${fromBaseUnits(amount, decimals)} ${symbol} is above the ` +
      `redemption ceiling hardMaxUsd = ${hardMaxUsd}: reduce the size and re-quote`,
  )
}
