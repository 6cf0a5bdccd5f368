import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'

/**
 * Budgets per rolling window, for an agent and for its user across all its agents: the pure
 * decision, tested alone. The store sums the ledger per window and calls it inside the
 * transaction that locks the user's and the agent's rows (daemon/buyer/budget-store.ts), so the
 * sums, the decision and the reservation are one step on every replica.
 *
 * Windows roll: a spend counts in a window while it is younger than the window's length. A month
 * is 30 days, rolling like the others, so no budget resets all at once on a calendar boundary.
 * Amounts are USD micro-units (6 decimals) as bigint.
 */
export const WINDOWS = ['hour', 'day', 'week', 'month'] as const
export type BudgetWindow = (typeof WINDOWS)[number]

const HOUR_MS = 3_600_000
export const WINDOW_MS: Record<BudgetWindow, number> = {
  hour: HOUR_MS,
  day: 24 * HOUR_MS,
  week: 7 * 24 * HOUR_MS,
  month: 30 * 24 * HOUR_MS,
}

/** Each window's setting as the wire names it; `dailyUsd` is the day's, as it was before there were windows. */
export const WINDOW_FIELD = {
  hour: 'hourlyUsd',
  day: 'dailyUsd',
  week: 'weeklyUsd',
  month: 'monthlyUsd',
} as const satisfies Record<BudgetWindow, string>

/** One scope's limits in USD decimal strings; null: no limit of that kind. */
export type Budget = {
  perPaymentUsd: string | null
  hourlyUsd: string | null
  dailyUsd: string | null
  weeklyUsd: string | null
  monthlyUsd: string | null
}
export const NO_BUDGET: Budget = {
  perPaymentUsd: null,
  hourlyUsd: null,
  dailyUsd: null,
  weeklyUsd: null,
  monthlyUsd: null,
}

export type BudgetScope = 'agent' | 'user'
/** What counts in each window (reserved and confirmed spends, and escrow whatever its age). */
export type WindowSpent = Record<BudgetWindow, bigint>
export const NOTHING_SPENT: WindowSpent = { hour: 0n, day: 0n, week: 0n, month: 0n }

/** Both scopes' limits and what counts against them, read at one moment. */
export type BudgetState = Record<BudgetScope, { budget: Budget; spent: WindowSpent }>

export type Remaining = Record<BudgetWindow, bigint | null>

export const USD_DECIMALS = 6
export const microsToUsd = (micros: bigint): string => fromBaseUnits(micros, USD_DECIMALS)
const micros = (usd: string) => toBaseUnits(usd, USD_DECIMALS)

/** What each window of one scope still allows (never below zero), or null where it has no limit. */
export function remainingIn(budget: Budget, spent: WindowSpent): Remaining {
  const r = {} as Remaining
  for (const w of WINDOWS) {
    const limit = budget[WINDOW_FIELD[w]]
    const left = limit === null ? null : micros(limit) - spent[w]
    r[w] = left === null ? null : left > 0n ? left : 0n
  }
  return r
}

/**
 * What may still be spent per window, in each scope: the function a verdict (pay --dry-run, the
 * policy rules) reads the remaining budget from.
 *
 * @example
 * remainingByWindow(await spends.budget(agentId)).user.month // bigint micro-USD, or null: no monthly user budget
 */
export function remainingByWindow(state: BudgetState): Record<BudgetScope, Remaining> {
  return {
    agent: remainingIn(state.agent.budget, state.agent.spent),
    user: remainingIn(state.user.budget, state.user.spent),
  }
}

/** The least of null-or-bigint values; null when every one is null (no limit). */
const least = (xs: (bigint | null)[]): bigint | null =>
  xs.reduce<bigint | null>((m, x) => (x === null ? m : m === null || x < m ? x : m), null)

/** What each window still allows across both scopes: the tighter of the agent's and its user's. */
export function leastByWindow(state: BudgetState): Remaining {
  const r = remainingByWindow(state)
  const out = {} as Remaining
  for (const w of WINDOWS) out[w] = least([r.agent[w], r.user[w]])
  return out
}

/** The least any window of either scope still allows: the most one spend may be now. null: no window limit at all. */
export function roomMicros(state: BudgetState): bigint | null {
  const l = leastByWindow(state)
  return least(WINDOWS.map((w) => l[w]))
}

/** The tighter of the two per-payment limits, if any. */
export function perPaymentMicros(state: BudgetState): bigint | null {
  const limit = (usd: string | null) => (usd === null ? null : micros(usd))
  return least([limit(state.agent.budget.perPaymentUsd), limit(state.user.budget.perPaymentUsd)])
}

const whose = (scope: BudgetScope) => (scope === 'agent' ? "this agent's" : "this user's (all its agents together)")
const howToRaise = (scope: BudgetScope, field: string) =>
  scope === 'agent'
    ? `the owning user can raise it (\`parx agent limits <id> --${flag(field)} <usd>\`)`
    : `the owning user can raise it (\`parx user limits --${flag(field)} <usd>\`)`
const flag = (field: string) =>
  ({
    perPaymentUsd: 'per-payment',
    hourlyUsd: 'hourly',
    dailyUsd: 'daily',
    weeklyUsd: 'weekly',
    monthlyUsd: 'monthly',
  })[field] ?? field

/**
 * Throws LIMIT_EXCEEDED (fields: limit, scope, limitUsd, amountUsd, remainingUsd) when `amountMicros`
 * does not fit; returns nothing when it does. Checked in order: per-payment (agent, then user),
 * then windows from the shortest, agent before user; the first that refuses is named.
 * `perPayment: false` for escrow (a channel deposit), which the per-payment limit does not bound.
 */
export function checkBudgets(state: BudgetState, amountMicros: bigint, opts: { perPayment?: boolean } = {}): void {
  const amountUsd = microsToUsd(amountMicros)
  const rem = remainingByWindow(state)
  if (opts.perPayment !== false) {
    for (const scope of ['agent', 'user'] as const) {
      const limit = state[scope].budget.perPaymentUsd
      if (limit !== null && amountMicros > micros(limit)) {
        throw new BaseError(
          'LIMIT_EXCEEDED',
          `${amountUsd} USD is above ${whose(scope)} per-payment limit of ${limit} ` +
            `USD; nothing was spent. Pay less, or ${howToRaise(scope, 'perPaymentUsd')}`,
          {
            fields: { limit: 'perPayment', scope, limitUsd: limit, amountUsd, remainingUsd: null },
          },
        )
      }
    }
  }
  for (const w of WINDOWS)
    for (const scope of ['agent', 'user'] as const) {
      const left = rem[scope][w]
      if (left === null || amountMicros <= left) continue
      const field = WINDOW_FIELD[w]
      const limit = state[scope].budget[field]!
      throw new BaseError(
        'LIMIT_EXCEEDED',
        `${amountUsd} USD is above what ${whose(scope)} ${w} budget of ${limit} USD still allows ` +
          `(${microsToUsd(left)} USD over the rolling ${w}); nothing was spent. Spend at most the ` +
          `remaining amount, wait until earlier spends leave the rolling ${w}, or ${howToRaise(scope, field)}`,
        {
          fields: { limit: w, scope, limitUsd: limit, amountUsd, remainingUsd: microsToUsd(left) },
        },
      )
    }
}
