import { z } from 'zod'
import { isoTime, uuid } from './fields.js'
import { limits } from './limits.js'
import { parseMoment } from './moment.js'

/**
 * An agent's payment history (pay, send, swap) and its report: the spends ledger as the owner
 * reads it. Pages are ordered newest first on (createdAt, id), and the cursor names the last row
 * of a page, so rows written while a caller pages never shift or repeat what it reads.
 */
export const PAYMENT_KINDS = ['pay', 'send', 'swap'] as const
export const paymentKind = z.enum(PAYMENT_KINDS)
export type PaymentKind = z.infer<typeof paymentKind>

/** Page sizes of GET /api/agents/:id/payments. */
export const PAYMENTS_PAGE = { default: 50, max: 200 } as const
/** The longest window a report covers: a year and a day, so "the last 12 months" always fits. */
export const REPORT_MAX_DAYS = 366

export const timeParam = z
  .string()
  .trim()
  .max(40)
  .refine((v) => !Number.isNaN(parseMoment(v)), 'must be an ISO date (2026-11-01) or time (2026-11-01T12:00:00Z)')
  .transform(parseMoment)

/**
 * A page cursor, `<createdAt ms>_<id>` of the last row of the page before (plain text: no Buffer, so a browser bundle
 * can import this).
 */
export const cursorParam = z
  .string()
  .max(128)
  .transform((v, ctx) => {
    const [t, id] = v.split('_')
    if (!t || !/^\d{1,15}$/.test(t) || !id || !uuid.safeParse(id).success) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'is not a cursor this route gave out (pass nextCursor as it came)',
      })
      return z.NEVER
    }
    return { createdAt: Number(t), id }
  })

export const encodeCursor = (createdAt: number, id: string): string => `${createdAt}_${id}`

const pageLimit = z
  .string()
  .regex(/^\d{1,4}$/, 'must be a whole number')
  .transform(Number)
  .refine((n) => n >= 1 && n <= PAYMENTS_PAGE.max, `must be 1 to ${PAYMENTS_PAGE.max}`)

/** A seller host as pay recorded it (lower case, no scheme or path; a port kept). */
const hostParam = z
  .string()
  .trim()
  .toLowerCase()
  .max(260)
  .regex(/^[a-z0-9.:\-[\]]+$/, 'must be a host name such as api.example.com')

/** GET /api/agents/:id/payments: every filter optional; query strings, as a URL carries them. */
export const paymentsQuery = z
  .object({
    since: timeParam.optional(),
    until: timeParam.optional(),
    kind: paymentKind.optional(),
    host: hostParam.optional(),
    limit: pageLimit.optional(),
    cursor: cursorParam.optional(),
  })
  .strict()
export type PaymentsQuery = z.input<typeof paymentsQuery>

/**
 * One pay, send or swap. state: `reserved` (counting toward the limits, not yet seen on chain: a
 * signed payment the seller may still submit), `confirmed` (on chain), `released` (moved nothing;
 * `reason` says why). amount and token: what left the wallet (a swap's input side).
 */
export const payment = z.object({
  id: uuid,
  kind: paymentKind,
  state: z.enum(['reserved', 'confirmed', 'released']),
  amount: z.string(),
  token: z.string(),
  /**
   * The amount in USD as the limits count it (every platform token is a dollar stable, 1:1, rounded up to 6 places).
   */
  amountUsd: z.string(),
  /** pay: the seller's host (null for payments recorded before hosts were kept); send and swap: null. */
  host: z.string().nullable(),
  /** send: the recipient; pay: the seller's payTo; swap: null. */
  recipient: z.string().nullable(),
  tx: z.string().nullable(),
  userOp: z.string().nullable(),
  reason: z.string().nullable(),
  createdAt: isoTime,
  /** Whether the platform holds a signed receipt of it (settled pays): GET /api/agents/:id/receipts/:paymentId. */
  receipt: z.boolean(),
  /**
   * pay with x402 auth-capture: the hold (the escrow's payment id) and what became of its maximum,
   * in token units: `held` the maximum signed, `holding` what is still held (the seller may capture
   * it until `captureDeadline`; after it the platform reclaims it), `captured` what the seller took,
   * `voided` / `refunded` / `reclaimed` what came back. The payment's amount and amountUsd are what
   * the agent parted with or still holds (held - voided - refunded - reclaimed), as its limits count.
   * Absent for every other payment.
   */
  hold: z
    .object({
      id: z.string(),
      status: z.enum(['held', 'settled', 'done']),
      held: z.string(),
      holding: z.string(),
      captured: z.string(),
      voided: z.string(),
      refunded: z.string(),
      reclaimed: z.string(),
      captureDeadline: isoTime,
      refundDeadline: isoTime,
    })
    .optional(),
})
export type Payment = z.infer<typeof payment>

export const paymentsPage = z.object({
  payments: z.array(payment),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
})
export type PaymentsPage = z.infer<typeof paymentsPage>

/** GET /api/agents/:id/report: the window [since, until), default the last 30 days; at most REPORT_MAX_DAYS. */
export const reportQuery = z
  .object({
    since: timeParam.optional(),
    until: timeParam.optional(),
    kind: paymentKind.optional(),
    host: hostParam.optional(),
  })
  .strict()
export type ReportQuery = z.input<typeof reportQuery>

/**
 * One group's totals: spends counted (confirmed or reserved; released ones moved nothing), their USD, and how many are
 * still pending on chain.
 */
const totals = { count: z.number().int(), usd: z.string(), pending: z.number().int() }

export const report = z.object({
  agentId: uuid,
  since: isoTime,
  until: isoTime,
  total: z.object(totals),
  /** UTC days with at least one spend, oldest first. */
  byDay: z.array(z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), ...totals })),
  /** pay only (send and swap have no host), most spent first. */
  byHost: z.array(z.object({ host: z.string(), ...totals })),
  /** Token amounts summed in the token's own units, by symbol. */
  byToken: z.array(z.object({ token: z.string(), amount: z.string(), ...totals })),
  byKind: z.array(z.object({ kind: paymentKind, ...totals })),
  /**
   * x402 auth-capture pays in the window, per token (token units, summed exactly): `count` holds,
   * `held` the maxima signed, `holding` what is still held, `captured` what sellers took, and
   * `voided` / `refunded` / `reclaimed` what came back. Each payment's own are its history row's
   * `hold`. Empty when there were none (and from a daemon older than this field).
   */
  holds: z
    .array(
      z.object({
        token: z.string(),
        count: z.number().int(),
        held: z.string(),
        holding: z.string(),
        captured: z.string(),
        voided: z.string(),
        refunded: z.string(),
        reclaimed: z.string(),
      }),
    )
    .default([]),
  /** The agent's limits now and what the rolling day has used. */
  limits,
})
export type Report = z.infer<typeof report>
