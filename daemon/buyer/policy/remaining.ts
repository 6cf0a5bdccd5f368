import { type BudgetState, leastByWindow, microsToUsd, perPaymentMicros, WINDOWS } from '../budgets.js'

/**
 * What the agent may still spend, in USD, for a dry-run verdict: per-payment (the tighter of the
 * agent's and its user's) and each rolling window, the least of what the agent's own window and
 * its user's (all its agents together) still allow; null where neither scope has that limit.
 */
export function remainingUsd(state: BudgetState): Record<string, string | null> {
  const usd = (m: bigint | null) => (m === null ? null : microsToUsd(m))
  const l = leastByWindow(state)
  const out: Record<string, string | null> = { perPayment: usd(perPaymentMicros(state)) }
  for (const w of WINDOWS) out[w] = usd(l[w])
  return out
}
