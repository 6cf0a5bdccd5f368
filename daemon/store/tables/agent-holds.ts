/**
 * An agent's x402 auth-capture payment (daemon/buyer/holds/): what it signed and what became of
 * its maximum. Amounts in base units of `token`, as decimal strings (uint120 does not fit a bigint
 * column on every dialect). `status`: `held` while something may still be captured (the capture
 * deadline not passed, the escrow's capturable amount not 0), `settled` once nothing is held any
 * more (captured, voided or reclaimed) but a refund may still come, `done` after the refund deadline.
 */
export interface PlatformAgentHoldsTable {
  /** The escrow's paymentInfoHash. */
  id: string
  spend_id: string
  agent_id: string
  network: string
  token: string
  decimals: number
  escrow: string
  /** PaymentInfo as JSON (bigints as decimal strings). */
  payment_info: string
  max_amount: string
  captured: string
  voided: string
  refunded: string
  reclaimed: string
  status: string
  capture_deadline: number
  refund_deadline: number
  /** The last transaction the seller's answer or the chain named (authorize, capture, void). */
  tx: string | null
  reclaim_tx: string | null
  /** The chain's head when the hold was signed: its escrow events are read from there. */
  from_block: number
  created_at: number
  updated_at: number
}

export interface AgentHoldTables {
  platform_agent_holds: PlatformAgentHoldsTable
}
