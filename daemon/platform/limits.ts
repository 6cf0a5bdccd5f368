import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'

/**
 * The decision half of spending limits, pure so it is tested alone; the store makes the check and
 * the reservation one atomic step around it. Amounts are USD micro-units (6 decimals) as bigint:
 * every platform token is a dollar stable counted 1:1, and a token with more decimals is rounded
 * UP to the micro-dollar, so rounding can never let a payment slip under a limit.
 */
export type LimitPolicy = { perPaymentUsd: string | null; dailyUsd: string | null; allowedHosts: string[] | null }

export const USD_DECIMALS = 6

/** A token amount (decimal string at `decimals`) in USD micro-units, rounded up. */
export function usdMicros(amount: string, decimals: number): bigint {
  const raw = toBaseUnits(amount, decimals)
  if (decimals <= USD_DECIMALS) return raw * 10n ** BigInt(USD_DECIMALS - decimals)
  const unit = 10n ** BigInt(decimals - USD_DECIMALS)
  return (raw + unit - 1n) / unit
}

export const microsToUsd = (micros: bigint): string => fromBaseUnits(micros, USD_DECIMALS)

/** `*.example.com` matches sub-domains of example.com (not example.com itself); anything else matches exactly. */
export function hostAllowed(allowed: readonly string[] | null, host: string): boolean {
  if (allowed === null) return true
  const h = host.toLowerCase()
  return allowed.some((a) => (a.startsWith('*.') ? h.endsWith(a.slice(1)) : h === a))
}

/** What the rolling day still allows, or null when there is no daily limit. */
export function remainingMicros(policy: LimitPolicy, spentTodayMicros: bigint): bigint | null {
  if (policy.dailyUsd === null) return null
  const left = usdMicros(policy.dailyUsd, USD_DECIMALS) - spentTodayMicros
  return left > 0n ? left : 0n
}

/**
 * Throws LIMIT_EXCEEDED (with limit, limitUsd, amountUsd, remainingUsd) when the spend does not
 * fit; returns nothing when it does. `host` is given for pay only.
 */
export function checkSpend(policy: LimitPolicy, x: { amountMicros: bigint; spentTodayMicros: bigint; host?: string }): void {
  const remaining = remainingMicros(policy, x.spentTodayMicros)
  const fields = (limit: 'perPayment' | 'daily' | 'allowedHosts', limitUsd: string | null) => ({
    limit, limitUsd, amountUsd: microsToUsd(x.amountMicros), remainingUsd: remaining === null ? null : microsToUsd(remaining),
  })
  if (x.host !== undefined && !hostAllowed(policy.allowedHosts, x.host)) {
    throw new BaseError('LIMIT_EXCEEDED', `${x.host} is not in this agent's allowed hosts (${policy.allowedHosts!.join(', ')}); nothing was paid`, {
      fields: fields('allowedHosts', null),
    })
  }
  if (policy.perPaymentUsd !== null && x.amountMicros > usdMicros(policy.perPaymentUsd, USD_DECIMALS)) {
    throw new BaseError('LIMIT_EXCEEDED', `${microsToUsd(x.amountMicros)} USD is above this agent's per-payment limit of ${policy.perPaymentUsd} USD; nothing was spent`, {
      fields: fields('perPayment', policy.perPaymentUsd),
    })
  }
  if (remaining !== null && x.amountMicros > remaining) {
    throw new BaseError('LIMIT_EXCEEDED', `${microsToUsd(x.amountMicros)} USD is above what this agent's daily limit of ${policy.dailyUsd} USD still allows (${microsToUsd(remaining)} USD); nothing was spent`, {
      fields: fields('daily', policy.dailyUsd),
    })
  }
}
