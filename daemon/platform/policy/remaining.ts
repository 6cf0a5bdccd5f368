import { microsToUsd, perPaymentMicros, remainingByWindow as byScope, WINDOWS, type BudgetState } from '../budgets.js'

/**
 * What the agent may still spend, in USD, for a dry-run verdict: per-payment (the tighter of the
 * agent's and its user's) and each rolling window, the least of what the agent's own window and
 * its user's (all its agents together) still allow; null where neither scope has that limit.
 */
export function remainingUsd(state: BudgetState): Record<string, string | null> {
  const r = byScope(state)
  const usd = (m: bigint | null) => (m === null ? null : microsToUsd(m))
  const out: Record<string, string | null> = { perPayment: usd(perPaymentMicros(state)) }
  for (const w of WINDOWS) {
    const both = [r.agent[w], r.user[w]].filter((x): x is bigint => x !== null)
    out[w] = usd(both.length ? both.reduce((m, x) => (x < m ? x : m)) : null)
  }
  return out
}
