import { z } from 'zod'
import { hostName, usdAmount } from './fields.js'
import { RULE_NAMES } from './policy.js'

/**
 * Spending limits of one agent and of its user, in USD (every platform token is a dollar stable
 * and counts 1:1). pay, send, swap, channel deposits (escrow, while it is held) and auth-capture
 * holds count toward them; the check and the reservation are one atomic step across replicas.
 * Windows roll: hour, day (24 h), week (7 days), month (30 days). `null` means no limit of that kind.
 */
export const budgetWindows = ['hour', 'day', 'week', 'month'] as const

/** One window as it stands: its limit, what counts in it now, and what it still allows. */
export const windowView = z.object({
  limitUsd: z.string().nullable(),
  spentUsd: z.string(),
  /** null: this window has no limit */
  remainingUsd: z.string().nullable(),
})
export const windowsView = z.object({ hour: windowView, day: windowView, week: windowView, month: windowView })
export type WindowsView = z.infer<typeof windowsView>

const budgetFields = {
  perPaymentUsd: z.string().nullable(),
  hourlyUsd: z.string().nullable(),
  /** the day window (24 h rolling), named as before windows existed */
  dailyUsd: z.string().nullable(),
  weeklyUsd: z.string().nullable(),
  monthlyUsd: z.string().nullable(),
}

/** A user's budgets, counted across all its agents. */
export const userLimits = z.object({ ...budgetFields, windows: windowsView })
export type UserLimits = z.infer<typeof userLimits>

export const limits = z.object({
  ...budgetFields,
  /** pay only: hosts the agent may pay; `*.example.com` matches sub-domains. null: any host. */
  allowedHosts: z.array(z.string()).nullable(),
  /**
   * pay and send above this USD amount wait for the owning user's approval (APPROVAL_REQUIRED);
   * null: never asked. Defaults to null so this client still reads a daemon from before approvals.
   */
  approveAboveUsd: z.string().nullable().default(null),
  /**
   * What counted in the rolling 24 hours, and what the agent's daily limit still allows (null: no daily limit);
   * `windows.day` repeats them.
   */
  spentTodayUsd: z.string(),
  remainingTodayUsd: z.string().nullable(),
  /** The agent's own windows. */
  windows: windowsView,
  /** Its user's budgets, over all the user's agents: they apply too. */
  user: z.object({ perPaymentUsd: z.string().nullable(), windows: windowsView }),
  /**
   * What one spend may be now: the least of every per-payment limit and window still open, agent and user. null: no
   * limit at all.
   */
  mayStillSpendUsd: z.string().nullable(),
})
export type Limits = z.infer<typeof limits>

const setBudgetFields = {
  perPaymentUsd: usdAmount.nullable().optional(),
  hourlyUsd: usdAmount.nullable().optional(),
  dailyUsd: usdAmount.nullable().optional(),
  weeklyUsd: usdAmount.nullable().optional(),
  monthlyUsd: usdAmount.nullable().optional(),
}

/** POST /api/agents/:id/limits: a field left out stays as it is; `null` removes that limit. */
export const setLimitsBody = z
  .object({
    ...setBudgetFields,
    allowedHosts: z.array(hostName).max(100, 'at most 100 hosts').nullable().optional(),
    approveAboveUsd: usdAmount.nullable().optional(),
  })
  .strict()
  .refine(
    (b) => Object.keys(b).length > 0,
    'set at least one of perPaymentUsd, hourlyUsd, dailyUsd, weeklyUsd, monthlyUsd, allowedHosts, approveAboveUsd',
  )
export type SetLimitsBody = z.input<typeof setLimitsBody>

/** POST /api/users/me/limits: same rule. */
export const setUserLimitsBody = z
  .object(setBudgetFields)
  .strict()
  .refine(
    (b) => Object.keys(b).length > 0,
    'set at least one of perPaymentUsd, hourlyUsd, dailyUsd, weeklyUsd, monthlyUsd',
  )
export type SetUserLimitsBody = z.input<typeof setUserLimitsBody>

/** The extra fields of a LIMIT_EXCEEDED error body, beside `error` and `code`. */
export const limitExceeded = z.object({
  error: z.string(),
  code: z.literal('LIMIT_EXCEEDED'),
  /**
   * which limit or rule refused: the per-payment limit, a window, the host allow-list, or a payee and network rule
   * (src/sdk/platform/policy.ts)
   */
  limit: z.enum(['perPayment', 'hour', 'day', 'week', 'month', 'allowedHosts', ...RULE_NAMES] as [string, ...string[]]),
  /** whose limit or rule: the agent's own, or its user's (all its agents together) */
  scope: z.enum(['agent', 'user']),
  limitUsd: z.string().nullable(),
  amountUsd: z.string().nullable(),
  /** what the refusing window still allows (null for per-payment, hosts and rules) */
  remainingUsd: z.string().nullable(),
  /** A rule's refusal: the list and the host, payTo, network or token refused. */
  rule: z.string().optional(),
  value: z.string().nullable().optional(),
})
export type LimitExceeded = z.infer<typeof limitExceeded>
