import { z } from 'zod'
import { uuid } from './fields.js'

/**
 * Approval above a threshold: a pay or send above the agent's `approveAboveUsd` is held (nothing
 * signed) until the owning user approves or denies it. The agent then sends the same request
 * again with `approvalId`, which is used once; an approval expires (config
 * `platform.approvalTtlSeconds`, default 15 minutes) whether decided or not, unless used.
 */
export const approvalState = z.enum(['pending', 'approved', 'denied', 'consumed', 'expired'])
export type ApprovalState = z.infer<typeof approvalState>

export const approval = z.object({
  id: uuid,
  agentId: uuid,
  kind: z.enum(['pay', 'send']),
  /** pay: the seller URL; send: the recipient address. */
  target: z.string(),
  /** pay: the method; send: null. */
  method: z.string().nullable(),
  /** The price (pay) or amount (send) when asked: executing may cost at most this. */
  amount: z.string(),
  token: z.string(),
  amountUsd: z.string(),
  state: approvalState,
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  consumedAt: z.string().nullable(),
})
export type Approval = z.infer<typeof approval>

export const approvalList = z.object({ approvals: z.array(approval) })
export type ApprovalList = z.infer<typeof approvalList>

export const approvalParams = z.object({ approvalId: uuid }).strict()

/**
 * GET /api/approvals: `state=pending` (default) for those awaiting a decision, `all` for the latest 100 of any state.
 */
export const approvalsQuery = z.object({ state: z.enum(['pending', 'all']).default('pending') }).strict()

/** The extra fields of an APPROVAL_REQUIRED error body, beside `error` and `code`. */
export const approvalRequired = z.object({
  error: z.string(),
  code: z.literal('APPROVAL_REQUIRED'),
  approvalId: uuid,
  state: z.literal('pending'),
  expiresAt: z.string(),
  amount: z.string(),
  token: z.string(),
})
export type ApprovalRequired = z.infer<typeof approvalRequired>
