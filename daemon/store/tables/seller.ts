/**
 * Batch-settlement channels as a seller holds them (220): one row per channel paying an x402
 * route the daemon serves (the platform's seller endpoints). Amounts are decimal strings (uint128
 * fits no integer column); the seller middleware's ChannelRecord is this row
 * (src/sdk/x402/seller/batch-settlement/store.ts, daemon/seller/batch-settlement/channel-store.ts).
 */
export interface X402SellerChannelsTable {
  /** lowercased bytes32 */
  channel_id: string
  network: string
  /** the ChannelConfig as JSON */
  config: string
  /** lowercased, for the claim duty's grouping */
  token: string
  receiver: string
  charged: string
  signed_max: string
  signature: string
  balance: string
  total_claimed: string
  withdraw_requested_at: number
  refund_nonce: string
  synced_at: number | null
  last_request_at: number
  pending_id: string | null
  pending_expires_at: number | null
  tag: string | null
}

/** Paid answers by payment id (230): src/sdk/x402/seller/answers/, daemon/seller/answer-store.ts. */
export interface X402SellerAnswersTable {
  key: string
  fingerprint: string
  owner: string
  lease_until: number
  expires_at: number
  /** null while the request holding the id is being served */
  status: number | null
  /** JSON */
  headers: string | null
  /** base64 */
  body: string | null
  bytes: number
  kept_at: number | null
}

/**
 * auth-capture holds as a seller keeps them (560): the escrow's paymentInfo and the client's
 * saltNonce (what a later capture, void or refund needs) and what was captured, voided and
 * refunded. The seller middleware's HoldRecord is this row (src/sdk/x402/seller/auth-capture/store.ts,
 * daemon/seller/hold-store.ts); `version` makes every change a compare-and-set.
 */
export interface X402SellerHoldsTable {
  /** lowercased paymentInfoHash */
  id: string
  network: string
  /** the PaymentRequirements held under, JSON */
  requirements: string
  /** the PaymentInfo as the wire spells it, JSON */
  payment_info: string
  salt_nonce: string
  payer: string
  pay_to: string
  max_amount: string
  status: string
  captured: string
  voided: string
  refunded: string
  capture_deadline: number
  refund_deadline: number
  authorize_tx: string
  capture_tx: string
  tag: string | null
  created_at: number
  updated_at: number
  version: number
}

export interface SellerTables {
  x402_seller_channels: X402SellerChannelsTable
  x402_seller_answers: X402SellerAnswersTable
  x402_seller_holds: X402SellerHoldsTable
}
