import { z } from 'zod'
import { hostName, usdAmount } from './fields.js'

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
  /**
   * pay and send above this USD amount wait for the owning user's approval (APPROVAL_REQUIRED);
   * null: never asked. Defaults to null so this client still reads a daemon from before approvals.
   */
  approveAboveUsd: z.string().nullable().default(null),
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
    approveAboveUsd: usdAmount.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'set at least one of perPaymentUsd, dailyUsd, allowedHosts, approveAboveUsd')
export type SetLimitsBody = z.input<typeof setLimitsBody>

/** The extra fields of a LIMIT_EXCEEDED error body, beside `error` and `code`. */
export const limitExceeded = z.object({
  error: z.string(),
  code: z.literal('LIMIT_EXCEEDED'),
  limit: z.enum(['perPayment', 'daily', 'allowedHosts']),
  limitUsd: z.string().nullable(),
  amountUsd: z.string(),
  remainingUsd: z.string().nullable(),
})
export type LimitExceeded = z.infer<typeof limitExceeded>
