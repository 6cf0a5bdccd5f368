import { type Address, type Hex, isAddressEqual, recoverTypedDataAddress } from 'viem'
import { BaseError } from '../../errors/index.js'
import { type ReceiptMessage, receiptTypedData } from './receipt-typed-data.js'
import { type SignedReceipt, signedReceipt } from './receipts.js'

export type VerifyReceiptParameters = {
  /**
   * The address the receipt must be signed by (the manifest's `receipts.signer`). Absent: the `signer` the receipt
   * names.
   */
  signer?: Address
}

export type VerifyReceiptReturnType = {
  valid: boolean
  /** Who signed exactly these fields (null when the signature does not recover at all). */
  recovered: Address | null
  /** Who it had to be. */
  expected: Address
  /** False when `expected` came from the receipt itself: anyone can sign a receipt naming their own key. */
  pinned: boolean
}

/**
 * Checks a receipt offline: the EIP-712 signature over its fields recovers to the expected signer.
 * Any changed field (amount, payTo, time...) recovers to another address, so it fails. No network.
 *
 * @example
 * const r = await verifyReceipt(receipt, { signer: manifest.receipts.signer })
 * if (!r.valid) throw new BaseError('BAD_REQUEST', 'not a receipt of this platform')
 */
export async function verifyReceipt(
  receipt: SignedReceipt,
  p: VerifyReceiptParameters = {},
): Promise<VerifyReceiptReturnType> {
  const expected = p.signer ?? (receipt.signer as Address)
  let recovered: Address | null = null
  try {
    recovered = await recoverTypedDataAddress({
      ...receiptTypedData(receipt.message as ReceiptMessage),
      signature: receipt.signature as Hex,
    })
  } catch {}
  return {
    valid: recovered !== null && isAddressEqual(recovered, expected),
    recovered,
    expected,
    pinned: p.signer !== undefined,
  }
}

/**
 * Receipts in a text as `parx payments --receipts` writes them: one JSON object, a JSON array, a
 * page (`{ receipts: [...] }`) or JSON lines. Throws BAD_REQUEST with the first problem when any is not a receipt.
 */
export function parseReceipts(text: string): SignedReceipt[] {
  const t = text.trim()
  if (!t) throw new BaseError('BAD_REQUEST', 'no receipt in the input')
  let items: unknown[]
  try {
    const whole = JSON.parse(t) as unknown
    items = Array.isArray(whole)
      ? whole
      : whole && typeof whole === 'object' && Array.isArray((whole as { receipts?: unknown }).receipts)
        ? (whole as { receipts: unknown[] }).receipts
        : [whole]
  } catch {
    items = t
      .split('\n')
      .filter((l) => l.trim())
      .map((l, i) => {
        try {
          return JSON.parse(l) as unknown
        } catch {
          throw new BaseError('BAD_REQUEST', `line ${i + 1} is not JSON`)
        }
      })
  }
  if (!items.length) throw new BaseError('BAD_REQUEST', 'no receipt in the input')
  return items.map((x, i) => {
    const r = signedReceipt.safeParse(x)
    if (!r.success) {
      const issue = r.error.issues[0]!
      throw new BaseError(
        'BAD_REQUEST',
        `${items.length > 1 ? `receipt ${i + 1}: ` : ''}${issue.path.join('.') || '(root)'} ${issue.message}`,
      )
    }
    return r.data
  })
}
