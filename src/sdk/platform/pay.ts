import { z } from 'zod'
import { decimalAmount, evmAddress, httpUrl, txHash, uuid } from './fields.js'
import { refusedBy } from './policy.js'
import { signedReceipt } from './receipts.js'

/**
 * Request headers the platform sets itself or that would let the agent speak for the platform.
 * Exported so that clients (the CLI, the MCP tool) refuse them before sending anything.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'payment-signature',
  'x-payment',
  'authorization',
  'proxy-authorization',
  'x-user-key',
  'x-agent-key',
  'x-api-key',
])

/** The methods pay forwards to a seller. */
export const PAY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** POST /api/agents/:id/pay: what to fetch; the price comes from the seller, never from here. */
export const payBody = z
  .object({
    url: httpUrl,
    method: z.enum(PAY_METHODS).default('GET'),
    headers: z
      .record(z.string().max(8192, 'header value longer than 8192 characters'))
      .refine((h) => Object.keys(h).length <= 50, 'at most 50 headers')
      .refine(
        (h) => Object.keys(h).every((k) => /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(k)),
        'a header name has characters HTTP does not allow',
      )
      .refine(
        (h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())),
        `may not set ${[...RESERVED_HEADERS].join(', ')}: the platform sets payment headers itself`,
      )
      .default({}),
    /** Forwarded as is (text). */
    body: z.string().max(1_000_000, 'body longer than 1 MB').optional(),
    /** Refuse (PRICE_ABOVE_MAX) when the seller asks more, in the seller's token. */
    maxAmount: decimalAmount.optional(),
    /** Pay only with this protocol; default: x402 when the seller offers it, else MPP. */
    protocol: z.enum(['x402', 'mpp']).optional(),
    /**
     * x402 only with this scheme: `auth-capture` (a refundable hold) or `exact`. Default: the
     * platform's preference (config `pay.preferAuthCapture`, auth-capture first) among those offered.
     */
    scheme: z.enum(['exact', 'auth-capture']).optional(),
    /** Fetch the terms and report the price without paying or counting toward limits. */
    dryRun: z.boolean().default(false),
    /** The approval an earlier APPROVAL_REQUIRED named, once approved: used once, for this same request only. */
    approvalId: uuid.optional(),
  })
  .strict()
  .refine((b) => b.body === undefined || b.method !== 'GET', {
    message: 'a GET has no body; use method POST',
    path: ['body'],
  })
export type PayBody = z.input<typeof payBody>

export const payProtocol = z.enum(['x402-v2', 'x402-v1', 'mpp'])

/** The seller's price as read from its 402 answer. */
export const price = z.object({
  protocol: payProtocol,
  amount: z.string(),
  token: z.string(),
  network: z.string(),
  payTo: z.string(),
})
export type Price = z.infer<typeof price>

/** What a payment cost and where it went on chain. */
export const receipt = z.object({
  protocol: payProtocol,
  amount: z.string(),
  token: z.string(),
  network: z.string(),
  /**
   * The settlement transaction (the facilitator's, or the MPP transfer); null for a voucher paid
   * through a batch-settlement channel (no transaction: the seller claims many later, in one).
   */
  transaction: txHash.nullable(),
  payer: evmAddress,
  payTo: z.string(),
  /**
   * Paid through the agent's batch-settlement channel: its id, the cumulative charged, and the deposit made by this
   * request if any.
   */
  channel: z.object({ id: z.string(), cumulative: z.string(), deposited: z.string().optional() }).optional(),
  /**
   * The platform's signed receipt of this payment, as GET /api/agents/:id/receipts/:paymentId returns it (absent where
   * the deployment has no receipt key).
   */
  signed: signedReceipt.optional(),
  /**
   * Paid with x402 auth-capture: the escrow's payment id (paymentInfoHash), the maximum held, what
   * the seller captured and voided as its answer says (token units), and until when the seller may
   * capture (after it the platform reclaims what is still held) and refund (ISO times).
   */
  hold: z
    .object({
      id: z.string(),
      held: z.string(),
      captured: z.string(),
      voided: z.string(),
      captureDeadline: z.string(),
      refundDeadline: z.string(),
    })
    .optional(),
})
export type Receipt = z.infer<typeof receipt>

/** The seller's answer passed through, plus the receipt; receipt is null when the URL asked for no payment. */
export const payResult = z.object({
  dryRun: z.literal(false),
  status: z.number().int(),
  headers: z.record(z.string()),
  body: z.string(),
  /** utf8 for text answers; base64 for anything else. */
  bodyEncoding: z.enum(['utf8', 'base64']),
  /** Present (true) when the seller's body was longer than 4 MiB and was cut there. */
  bodyTruncated: z.literal(true).optional(),
  receipt: receipt.nullable(),
})
export type PayResult = z.infer<typeof payResult>

/** The offer pay would take: its scheme (x402 `exact`, `batch-settlement`; MPP `charge`) besides the price. */
export const chosenOffer = price.extend({ scheme: z.string() })
export type ChosenOffer = z.infer<typeof chosenOffer>

/**
 * A dry run's verdict: whether the agent would pay now, and if not which rule refuses (a payee or
 * network rule, or a limit); the offer it would take; what each budget window still allows (USD;
 * null: no limit of that kind). Answered with 200 either way: a refusal is the verdict, not an error.
 */
export const payDryRun = z.object({
  dryRun: z.literal(true),
  /** Whether this call would pay now: no rule or limit refuses, and no approval would be asked first. */
  wouldPay: z.boolean(),
  /**
   * The price is above the agent's `approveAboveUsd`: a pay would be held for the owner
   * (APPROVAL_REQUIRED with an approvalId, nothing signed) and paid once approved. Absent
   * (false) from daemons from before approvals.
   */
  approvalRequired: z.boolean().default(false),
  /** The agent's approval threshold in USD; null: no approval is ever asked. */
  approveAboveUsd: z.string().nullable().default(null),
  refusedBy: refusedBy.nullable(),
  /** null when the URL did not answer 402 (nothing to pay) or a host rule refused before the seller was asked. */
  offer: chosenOffer.nullable(),
  remaining: z.record(z.string().nullable()),
  /** The offer's price (as before the verdict; same as `offer` without `scheme`). */
  price: price.nullable(),
  /**
   * No rule or limit refuses (kept for clients from before the verdict; wouldPay also says whether an approval would be
   * asked).
   */
  withinLimits: z.boolean(),
  remainingTodayUsd: z.string().nullable(),
})
export type PayDryRun = z.infer<typeof payDryRun>

export const payAnswer = z.discriminatedUnion('dryRun', [payResult, payDryRun])
export type PayAnswer = z.infer<typeof payAnswer>

/**
 * Extra fields of PAYMENT_REFUSED and SELLER_FAILED bodies: whether money moved, and where.
 * `reservedUntil` (ISO time): nothing moved yet, but the seller holds a signed payment usable until
 * then, so its amount stays reserved against the agent's limits until the chain shows it expired unused.
 */
export const payFailure = z.object({
  error: z.string(),
  code: z.enum(['PAYMENT_REFUSED', 'SELLER_FAILED']),
  charged: z.boolean(),
  transaction: txHash.nullable(),
  reservedUntil: z.string().nullable().optional(),
})
