import { z } from 'zod'

/**
 * GET /dashboard/api/agents/:id/spending: what an agent spent per day, for the agent page's chart.
 *
 * Days are UTC calendar days (00:00 to 24:00 UTC), whatever the browser's time zone: the same days
 * `parx report` totals by, so the chart and the report agree for anyone anywhere. The window is the
 * SPENDING_DAYS days ending with today (UTC), oldest first, one entry per day, a day with no spend
 * included as "0". A spend counts as the limits count it: reserved (a signed payment the seller may
 * still submit) or confirmed; a released one moved nothing and is left out.
 *
 * The daily limit is checked over any rolling 24 hours, and a UTC day is one such window, so a day's
 * bar stays at or under `dailyLimitUsd` unless the limit was lowered after that day's spends.
 */
export const SPENDING_DAYS = 30

export const spendingDay = z.object({
  /** The UTC day, YYYY-MM-DD. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** USD spent that day (every platform token is a dollar stable, counted 1:1), a decimal string. */
  usd: z.string(),
  /** How many spends (pay, send, swap) that day. */
  count: z.number().int().nonnegative(),
})
export type SpendingDay = z.infer<typeof spendingDay>

export const spending = z.object({
  agentId: z.string(),
  timeZone: z.literal('UTC'),
  /** SPENDING_DAYS entries, oldest first; the last is today (UTC). */
  days: z.array(spendingDay),
  /** The agent's daily limit now (USD), drawn as a line; null: no daily limit. */
  dailyLimitUsd: z.string().nullable(),
})
export type Spending = z.infer<typeof spending>
