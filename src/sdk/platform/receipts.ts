import { z } from 'zod'
import { uuid } from './fields.js'
import { cursorParam, timeParam } from './history.js'
import { RECEIPT_DOMAIN } from './receipt-typed-data.js'

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address (0x and 40 hex digits)')

/**
 * The signed fields (src/sdk/platform/receipt-typed-data.ts), exactly as signed: nothing else may ride along unsigned.
 */
export const receiptMessage = z
  .object({
    paymentId: z.string().max(200),
    agentId: z.string().max(200),
    agentWallet: address,
    host: z.string().max(260),
    payTo: address,
    network: z.string().max(100),
    token: address,
    symbol: z.string().max(32),
    decimals: z.number().int().min(0).max(255),
    amount: z.string().regex(/^\d{1,78}$/, 'must be base units as a decimal string'),
    protocol: z.string().max(32),
    transaction: z.string().max(300),
    paidAt: z.number().int().min(0),
  })
  .strict()

/**
 * A payment receipt signed by the platform (EIP-712, domain `{ name: 'parx receipt', version: '1' }`).
 * `signer` is the address that signed it, as the platform says: pin it from GET /api/manifest
 * (`receipts.signer`) rather than trusting the copy in the file. `sellerReceipt` is the seller's
 * own signed receipt when its answer carried one (x402's offer-receipt extension), kept as it came
 * (format `eip712` or `jws`); our signature does not cover it, it is checked against the seller's key.
 */
export const signedReceipt = z
  .object({
    domain: z.object({ name: z.literal(RECEIPT_DOMAIN.name), version: z.literal(RECEIPT_DOMAIN.version) }).strict(),
    primaryType: z.literal('Receipt'),
    message: receiptMessage,
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature (0x and 130 hex digits)'),
    signer: address,
    sellerReceipt: z.record(z.unknown()).nullable(),
  })
  .strict()
export type SignedReceipt = z.infer<typeof signedReceipt>

/** Page sizes of GET /api/agents/:id/receipts. */
export const RECEIPTS_PAGE = { default: 50, max: 200 } as const

const pageLimit = z
  .string()
  .regex(/^\d{1,4}$/, 'must be a whole number')
  .transform(Number)
  .refine((n) => n >= 1 && n <= RECEIPTS_PAGE.max, `must be 1 to ${RECEIPTS_PAGE.max}`)

/** GET /api/agents/:id/receipts: newest first, paged like the payments (the cursor names a payment). */
export const receiptsQuery = z
  .object({
    since: timeParam.optional(),
    until: timeParam.optional(),
    limit: pageLimit.optional(),
    cursor: cursorParam.optional(),
  })
  .strict()
export type ReceiptsQuery = z.input<typeof receiptsQuery>

export const receiptsPage = z.object({
  receipts: z.array(signedReceipt),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
})
export type ReceiptsPage = z.infer<typeof receiptsPage>

/** GET /api/agents/:id/receipts/:paymentId: the payment id is the one `parx payments` lists. */
export const receiptParams = z.object({ id: uuid, paymentId: uuid })
