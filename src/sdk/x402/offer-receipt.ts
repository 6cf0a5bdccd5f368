import { decodeHeader, isRecord, headers as x402Headers } from './wire.js'

/** x402's offer-and-receipt extension key (x402 specs/extensions/extension-offer-and-receipt.md, v1.0). */
export const OFFER_RECEIPT = 'offer-receipt'

/** A seller's signed receipt kept as it came is bounded: it is stored beside ours and shown in exports. */
const MAX_SELLER_RECEIPT = 16_384

/**
 * The seller's signed receipt from a paid answer, when its settlement response carries the
 * offer-receipt extension: `PAYMENT-RESPONSE` (or v1's `X-PAYMENT-RESPONSE`) ->
 * `extensions["offer-receipt"].info.receipt`, either `{ format: "eip712", payload, signature }` or
 * `{ format: "jws", signature }` (as @x402/extensions' extractReceiptFromResponse reads it). Kept as
 * is and not trusted for anything: it says what the seller claims to have delivered, signed by the
 * seller's key, which only the seller's own published key can check. Anything else: undefined.
 */
export function sellerReceiptOf(res: Pick<Response, 'headers'>): Record<string, unknown> | undefined {
  const settle = decodeHeader(res.headers.get(x402Headers.response) ?? res.headers.get(x402Headers.v1Response))
  const ext = settle && isRecord(settle.extensions) ? settle.extensions[OFFER_RECEIPT] : undefined
  const receipt = isRecord(ext) && isRecord(ext.info) ? ext.info.receipt : undefined
  if (!isRecord(receipt) || typeof receipt.signature !== 'string') return undefined
  if (receipt.format === 'eip712' ? !isRecord(receipt.payload) : receipt.format !== 'jws') return undefined
  return JSON.stringify(receipt).length <= MAX_SELLER_RECEIPT ? receipt : undefined
}
