import { BaseError } from '../../src/errors/index.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import { type Budget, type BudgetState, checkBudgets, microsToUsd, USD_DECIMALS } from './budgets.js'
import { hostMatches } from './policy/rules.js'

export { microsToUsd, USD_DECIMALS } from './budgets.js'

/**
 * The decision half of spending limits, pure so it is tested alone; the store makes the check and
 * the reservation one atomic step around it. Amounts are USD micro-units (6 decimals) as bigint:
 * every platform token is a dollar stable counted 1:1, and a token with more decimals is rounded
 * UP to the micro-dollar, so rounding can never let a payment slip under a limit. The budgets per
 * window and per user are daemon/buyer/budgets.ts; this adds the agent's host allow-list.
 */
export type LimitPolicy = Budget & { allowedHosts: string[] | null }

/** A token amount (decimal string at `decimals`) in USD micro-units, rounded up. */
export function usdMicros(amount: string, decimals: number): bigint {
  const raw = toBaseUnits(amount, decimals)
  if (decimals <= USD_DECIMALS) return raw * 10n ** BigInt(USD_DECIMALS - decimals)
  const unit = 10n ** BigInt(decimals - USD_DECIMALS)
  return (raw + unit - 1n) / unit
}

/** Whether the agent's host allow-list lets `host` be paid (null: any host); patterns as the payee rules read them. */
export function hostAllowed(allowed: readonly string[] | null, host: string): boolean {
  return allowed === null || allowed.some((a) => hostMatches(a, host))
}

/**
 * Throws LIMIT_EXCEEDED (with limit, scope, limitUsd, amountUsd, remainingUsd) when the spend does
 * not fit the agent's host allow-list or a budget of the agent or its user; returns nothing when it
 * does. `host` is given for pay only; `perPayment: false` for escrow (channel deposits).
 */
export function checkSpend(
  state: BudgetState,
  allowedHosts: string[] | null,
  x: { amountMicros: bigint; host?: string; perPayment?: boolean },
): void {
  if (x.host !== undefined && !hostAllowed(allowedHosts, x.host)) {
    throw new BaseError(
      'LIMIT_EXCEEDED',
      `${x.host} is not in this agent's allowed hosts (${allowedHosts!.join(', ')}); nothing was paid`,
      {
        fields: {
          limit: 'allowedHosts',
          scope: 'agent',
          limitUsd: null,
          amountUsd: microsToUsd(x.amountMicros),
          remainingUsd: null,
        },
      },
    )
  }
  checkBudgets(state, x.amountMicros, { perPayment: x.perPayment })
}
