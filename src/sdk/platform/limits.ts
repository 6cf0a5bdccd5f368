import { z } from 'zod'
import { hostName, usdAmount } from './fields.js'
import { RULE_NAMES } from './policy.js'

/**
 * Spending limits of one agent, in USD (every platform token is a dollar stable and counts 1:1).
 * pay, send and swap count toward them; the check and the reservation are one atomic step.
 * `null` means no limit of that kind.
 */
export const limits = z.object({
  perPaymentUsd: z.string().nullable(),
  dailyUsd: z.string().nullable(),
  /** pay only: hosts the agent may pay; `*.example.com` matches sub-domains. null: any host. */
  allowedHosts: z.array(z.string()).nullable(),
  /** What pay/send/swap spent in the rolling 24 hours, and what the daily limit still allows (null: no daily limit). */
  spentTodayUsd: z.string(),
  remainingTodayUsd: z.string().nullable(),
})
export type Limits = z.infer<typeof limits>

/** POST /api/agents/:id/limits: a field left out stays as it is; `null` removes that limit. */
export const setLimitsBody = z
  .object({
    perPaymentUsd: usdAmount.nullable().optional(),
    dailyUsd: usdAmount.nullable().optional(),
    allowedHosts: z.array(hostName).max(100, 'at most 100 hosts').nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'set at least one of perPaymentUsd, dailyUsd, allowedHosts')
export type SetLimitsBody = z.input<typeof setLimitsBody>

/** The extra fields of a LIMIT_EXCEEDED error body, beside `error` and `code`. */
export const limitExceeded = z.object({
  error: z.string(),
  code: z.literal('LIMIT_EXCEEDED'),
  /** A limit, or a payee and network rule (src/sdk/platform/policy.ts; the agent's host allow-list stays `allowedHosts`). */
  limit: z.enum(['perPayment', 'daily', 'allowedHosts', ...RULE_NAMES] as [string, ...string[]]),
  limitUsd: z.string().nullable(),
  amountUsd: z.string().nullable(),
  remainingUsd: z.string().nullable(),
  /** A rule's refusal: the list, whose it is, and the host, payTo, network or token refused. */
  rule: z.string().optional(),
  scope: z.enum(['agent', 'user']).optional(),
  value: z.string().nullable().optional(),
})
export type LimitExceeded = z.infer<typeof limitExceeded>
