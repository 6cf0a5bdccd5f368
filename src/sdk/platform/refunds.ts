import { z } from 'zod'
import { decimalAmount, txHash, uuid } from './fields.js'

/**
 * An auth-capture payment's id: the escrow's paymentInfoHash, as PAYMENT-RESPONSE `extra.paymentInfoHash` and the
 * webhook name it.
 */
export const paymentInfoId = z
  .string({ required_error: 'required' })
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte payment id (0x + 64 hex)')
  .transform((v) => v.toLowerCase())

/**
 * POST /api/refunds: a seller returns a captured auth-capture payment of one of its endpoints to
 * the buyer, before the payment's refund deadline. `amount` (decimal, in the endpoint's token)
 * defaults to everything captured and not refunded yet. The endpoint's payTo wallet funds it.
 */
export const refundBody = z
  .object({
    paymentId: paymentInfoId,
    amount: decimalAmount.optional(),
  })
  .strict()
export type RefundBody = z.input<typeof refundBody>

export const refundAnswer = z.object({
  paymentId: z.string(),
  endpointId: uuid,
  network: z.string(),
  token: z.string(),
  /** What this refund returned. */
  amount: z.string(),
  amountRaw: z.string(),
  /** The payment's totals after it: captured, and refunded in all. */
  captured: z.string(),
  refunded: z.string(),
  transaction: txHash,
  /** Until when the rest may still be refunded (ISO time). */
  refundDeadline: z.string(),
})
export type RefundAnswer = z.infer<typeof refundAnswer>
