/** Cross-chain orders (400). Amounts are base units as decimal strings (u256 fits no integer column). */
export interface XchainOrdersTable {
  /** 0x + 64 lower-case hex */
  order_id: string
  rail: 'sol-origin' | 'evm-origin'
  /**
   * The worker's step: built, opened, delivered, attested, claimed, refunded, dropped, attention
   * (daemon/xchain/stages.ts).
   */
  stage: string
  /** The origin-chain user (base58 or 0x). */
  user: string
  in_symbol: string
  out_symbol: string
  /** Origin mint or token address. */
  input_token: string
  input_amount: string
  /** 0x bytes32 chainRef of the destination */
  dest_chain: string
  /** Destination token as the destination writes it (0x address or base58 mint). */
  output_token: string
  output_amount: string
  /** Destination recipient as the destination writes it. */
  recipient: string
  /** Unix seconds */
  fill_deadline: number
  expires: number
  nonce: string
  /** The rail's full encoding of the order (JSON), enough to open, claim or refund it again. */
  order_data: string
  /** The lock transaction (Solana: its fee payer's signature, known before it is submitted). */
  open_ref: string | null
  /** Solana: the lock's lastValidBlockHeight; past it, a lock that has not landed never will. */
  open_valid_until: number | null
  deliver_ref: string | null
  /** Delivered amount as read from the destination's fill record. */
  delivered: string | null
  claim_ref: string | null
  claim_valid_until: number | null
  /** The signed claim (base64), persisted before its broadcast (401_xchain_raw_txs). */
  claim_raw: string | null
  refund_ref: string | null
  refund_valid_until: number | null
  refund_raw: string | null
  /** Why the order is in attention, or the last failure of a step that is retried. */
  reason: string | null
  /** Failed step attempts since the last progress. */
  attempts: number
  created_at: number
  updated_at: number
}

/** One attestor's signature over an order's delivery statement (400). */
export interface XchainAttestationsTable {
  order_id: string
  /** 0, 1 or 2 */
  attestor: number
  /** The attestor's public key (base58) or address (0x). */
  signer: string
  /** The signed statement (0x hex: the 248 bytes, or the EIP-712 digest). */
  statement: string
  signature: string
  created_at: number
}

/** Destination inventory promised to an order, or held through POST /api/reserve (400). */
export interface XchainReservationsTable {
  /** The order id for orders; `rsv_<hex>` for the reserve route. */
  id: string
  network: string
  /** Token symbol on that network. */
  token: string
  amount: string
  ref: string
  /** held: promised; spent: delivered (the balance shows it); released: free again. */
  state: 'held' | 'spent' | 'released'
  /** Unix ms after which a held reservation no longer counts (reserve route only). */
  expires_at: number | null
  created_at: number
  updated_at: number
}

/** The solver's switches (paused) and liveness (last pass), by name (400). */
export interface XchainSolverTable {
  name: string
  value: string
  updated_at: number
}

export interface XchainTables {
  xchain_orders: XchainOrdersTable
  xchain_attestations: XchainAttestationsTable
  xchain_reservations: XchainReservationsTable
  xchain_solver: XchainSolverTable
}
