/** A signed receipt of a settled pay (650): daemon/buyer/receipts/. */
export interface PlatformReceiptsTable {
  /** the pay spend's id (platform_spends.id) */
  payment_id: string
  agent_id: string
  /** the signed EIP-712 message, JSON (src/sdk/platform/receipts.ts receiptMessage) */
  message: string
  /** 0x + 130 hex */
  signature: string
  /** the receipt key's address when it was signed */
  signer: string
  /** the seller's signed receipt (x402 offer-receipt extension) as it came, JSON; null when it sent none */
  seller_receipt: string | null
  /** epoch ms */
  created_at: number | string
}

export interface ReceiptTables {
  platform_receipts: PlatformReceiptsTable
}
