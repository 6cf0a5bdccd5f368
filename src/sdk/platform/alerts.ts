import { z } from 'zod'
import { decimalAmount, usdAmount, uuid } from './fields.js'
import { budgetWindows } from './limits.js'

/**
 * Alerts: rules a user sets on its agents' spending, each firing once per crossing, delivered
 * through the user's own signed webhooks (one event type per kind, ALERT_EVENTS) and kept in a
 * history. A rule watches every agent of the user, or the one agent named by `agentId`.
 *
 * - `budget`: a window's budget (the agent's, or the user's across all its agents: `of`) reaches
 *   `percent` % of its limit. Fires on the spend that takes it from below to at-or-above; again
 *   only after the window fell back below (spends left the rolling window or were released).
 * - `payment_above`: one pay, send or swap above `usd` USD.
 * - `new_payee`: a pay to a seller host the agent (or, `of: user`, any agent of the user) never
 *   paid before (a released spend paid nothing, so it does not count as paid).
 * - `refusals`: `count` refusals of one agent within `withinMinutes` (LIMIT_EXCEEDED, which payee
 *   and network rules answer too, AGENT_FROZEN, APPROVAL_NOT_USABLE, EGRESS_REFUSED). Fires on the
 *   refusal that makes the count reach `count`; again after the count fell below.
 * - `spend_rate`: one agent's spend over the last `period` (hour or day) above `factor` times its
 *   average for such a period over the 7 days before it (that week's spend / 168 hours or / 7
 *   days). An agent with no spend in those 7 days has no average yet and never fires.
 */
export const ALERT_KINDS = ['budget', 'payment_above', 'new_payee', 'refusals', 'spend_rate'] as const
export type AlertKind = (typeof ALERT_KINDS)[number]

/** The webhook event type of each kind's alerts. */
export const ALERT_EVENTS = {
  budget: 'alert.budget',
  payment_above: 'alert.payment_above',
  new_payee: 'alert.new_payee',
  refusals: 'alert.refusals',
  spend_rate: 'alert.spend_rate',
} as const satisfies Record<AlertKind, string>

/** The error codes a `refusals` rule counts. */
export const COUNTED_REFUSALS = ['LIMIT_EXCEEDED', 'AGENT_FROZEN', 'APPROVAL_NOT_USABLE', 'EGRESS_REFUSED'] as const

const scope = { agentId: uuid.nullable().optional() }
const factor = decimalAmount.refine((v) => (v.split('.')[1] ?? '').length <= 3, 'has more than 3 decimal places')

export const budgetRule = z
  .object({
    kind: z.literal('budget'),
    ...scope,
    percent: z.number().int().min(1).max(100),
    window: z.enum(budgetWindows),
    /**
     * whose budget: the agent's own window (each agent's, or the one named) or the user's across all its agents;
     * default agent with agentId, user without
     */
    of: z.enum(['agent', 'user']).optional(),
  })
  .strict()
export const paymentAboveRule = z.object({ kind: z.literal('payment_above'), ...scope, usd: usdAmount }).strict()
export const newPayeeRule = z
  .object({ kind: z.literal('new_payee'), ...scope, of: z.enum(['agent', 'user']).optional() })
  .strict()
export const refusalsRule = z
  .object({
    kind: z.literal('refusals'),
    ...scope,
    count: z.number().int().min(1).max(1000),
    withinMinutes: z.number().int().min(1).max(10_080),
  })
  .strict()
export const spendRateRule = z
  .object({ kind: z.literal('spend_rate'), ...scope, factor, period: z.enum(['hour', 'day']) })
  .strict()

/** POST /api/alerts: one rule. */
export const createAlertRuleBody = z.discriminatedUnion('kind', [
  budgetRule,
  paymentAboveRule,
  newPayeeRule,
  refusalsRule,
  spendRateRule,
])
export type CreateAlertRuleBody = z.input<typeof createAlertRuleBody>
export type AlertRuleSettings = z.output<typeof createAlertRuleBody>

const ruleBase = { id: uuid, agentId: uuid.nullable(), createdAt: z.string() }
/** A stored rule: its settings with `of` resolved, its id and scope. */
export const alertRule = z.discriminatedUnion('kind', [
  budgetRule.extend({ ...ruleBase, of: z.enum(['agent', 'user']) }),
  paymentAboveRule.extend(ruleBase),
  newPayeeRule.extend({ ...ruleBase, of: z.enum(['agent', 'user']) }),
  refusalsRule.extend(ruleBase),
  spendRateRule.extend(ruleBase),
])
export type AlertRule = z.infer<typeof alertRule>
export const alertRuleList = z.object({ rules: z.array(alertRule) })
export type AlertRuleList = z.infer<typeof alertRuleList>

export const alertRuleParams = z.object({ ruleId: uuid }).strict()

/** One fired alert, as the history, the dashboard and the webhook's `data` show it. */
export const firedAlert = z.object({
  id: uuid,
  ruleId: uuid,
  kind: z.enum(ALERT_KINDS),
  /** the agent it is about; null for a user budget crossed by the user's agents together */
  agentId: uuid.nullable(),
  firedAt: z.string(),
  /** one line saying what crossed what */
  message: z.string(),
  /**
   * the numbers that made it fire: USD amounts as decimal strings, counts as numbers, and the spend's id (paymentId)
   * where one crossed
   */
  figures: z.record(z.union([z.string(), z.number(), z.null()])),
})
export type FiredAlert = z.infer<typeof firedAlert>
export const alertHistory = z.object({ alerts: z.array(firedAlert) })
export type AlertHistory = z.infer<typeof alertHistory>

/** GET /api/alerts/history: newest first, at most `limit` (default 100), optionally one agent's. */
export const alertHistoryQuery = z
  .object({
    agentId: uuid.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict()

export const deletedAlertRule = z.object({ id: uuid, deleted: z.literal(true) })
