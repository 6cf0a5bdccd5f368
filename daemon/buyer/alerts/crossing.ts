/**
 * When an alert rule fires: the pure decisions, tested alone (crossing.test.ts). Every rule fires
 * on a crossing, never on a level: the spend (or refusal) that takes a figure from below its
 * threshold to at-or-above it. "Below" is measured with everything ordered before that spend, by
 * (created_at, id), so exactly one spend crosses a threshold however many evaluate at once, and a
 * later spend while the figure stays above crosses nothing. Once the figure is below again (spends
 * left the rolling window, or were released) the next spend that lifts it crosses again.
 * Amounts are USD micro-units as bigint.
 */

/** `percent` % of a window's budget crossed: before < limit*percent/100 <= after (exact, no division). */
export function budgetCrossed(p: {
  beforeMicros: bigint
  afterMicros: bigint
  limitMicros: bigint
  percent: number
}): boolean {
  const line = p.limitMicros * BigInt(p.percent)
  return p.beforeMicros * 100n < line && line <= p.afterMicros * 100n
}

/** One spend above the threshold (strictly: a payment of exactly X is not above X). */
export const paymentAbove = (amountMicros: bigint, thresholdMicros: bigint): boolean => amountMicros > thresholdMicros

/** The refusal that makes the count within the window reach `count` (it counts itself). */
export const refusalsCrossed = (countWithThis: number, count: number): boolean => countWithThis === count

/** Periods of a 7-day baseline: 168 hours, 7 days. */
export const PERIODS_PER_WEEK = { hour: 168n, day: 7n } as const
export type RatePeriod = keyof typeof PERIODS_PER_WEEK

/** A factor as a decimal string ("2.5") in thousandths (2500n): the rule's factor has at most 3 places. */
export function factorMilli(factor: string): bigint {
  const [whole, frac = ''] = factor.split('.')
  return BigInt(whole!) * 1000n + BigInt((frac + '000').slice(0, 3))
}

/**
 * spend rate: the spend over the last period is above `factor` times the period's average over
 * the 7 days before it (baseline / periods per week). No baseline (no spend in those 7 days): no
 * average, never fires. Crossed: not above before this spend, above with it.
 */
export function rateCrossed(p: {
  beforeMicros: bigint
  afterMicros: bigint
  baselineMicros: bigint
  period: RatePeriod
  factorMilli: bigint
}): boolean {
  if (p.baselineMicros <= 0n) return false
  const line = p.factorMilli * p.baselineMicros
  const scaled = (v: bigint) => v * PERIODS_PER_WEEK[p.period] * 1000n
  return scaled(p.beforeMicros) <= line && scaled(p.afterMicros) > line
}

/** The period's average over the baseline week, in micro-USD (rounded down), for the alert's figures. */
export const averageMicros = (baselineMicros: bigint, period: RatePeriod): bigint =>
  baselineMicros / PERIODS_PER_WEEK[period]
