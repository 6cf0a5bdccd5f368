import { z } from 'zod'
import { PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH, PAYMENT_ID_PATTERN } from './payment-identifier.js'

/**
 * The facilitator's status routes (ours, after Circle's facilitator): where a settlement stands,
 * for a seller that was answered `settlement_pending`. Paths are under {facilitator_url}.
 */
export const statusPaths = {
  byPaymentId: '/facilitator/status/:paymentId',
  byTransaction: '/facilitator/status/tx/:transaction',
} as const

export const StatusParams = z.object({
  paymentId: z
    .string()
    .min(PAYMENT_ID_MIN_LENGTH)
    .max(PAYMENT_ID_MAX_LENGTH)
    .regex(PAYMENT_ID_PATTERN, 'letters, digits, - and _ only'),
})
/** `payTo`: the seller the id is scoped to, needed only when two sellers used the same id. */
export const StatusQuery = z.object({ payTo: z.string().min(1).max(128).optional() })
export const TransactionParams = z.object({
  transaction: z
    .string()
    .regex(/^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,90})$/, 'an EVM transaction hash or a Solana signature'),
})

/** `pending`: broadcast, not yet decided by the chain; `completed`: paid; `failed`: nothing was paid. */
export const PaymentStatusSchema = z.object({
  paymentId: z.string().nullable(),
  status: z.enum(['pending', 'completed', 'failed']),
  /** CAIP-2 */
  network: z.string(),
  transaction: z.string().nullable(),
  payer: z.string().nullable(),
  payTo: z.string(),
  /** base units; null for a payment refused before its terms were recorded */
  amount: z.string().nullable(),
  /** an x402 reason (`failed`, and `pending` while the chain lost the transaction) */
  reason: z.string().nullable(),
  message: z.string().nullable(),
  /** ISO 8601 time of the last change */
  updatedAt: z.string(),
})
export type PaymentStatus = z.infer<typeof PaymentStatusSchema>

/** GET /status/tx/:transaction: every payment the transaction settles or tried to. */
export const TransactionStatusSchema = z.object({ transaction: z.string(), payments: z.array(PaymentStatusSchema) })
export type TransactionStatus = z.infer<typeof TransactionStatusSchema>
