/**
 * Approvals (670): a pay or send above its agent's `approveAboveUsd`, held until the owning user
 * approves or denies it. Nothing is signed for a row; the agent's retry naming the approved row
 * consumes it (state `consumed`) in one conditional update, then reserves and signs as usual.
 */
export interface PlatformApprovalsTable {
  id: string
  agent_id: string
  user_id: string
  kind: 'pay' | 'send'
  /**
   * sha256 of what was asked (pay: method, URL, body, maxAmount, protocol; send: to, amount, token): the retry must ask
   * the same
   */
  request_hash: string
  /** pay: the seller URL; send: the recipient address */
  target: string
  /** pay: GET, POST...; send: null */
  method: string | null
  /**
   * the price (pay) or amount (send) when asked, in the token's units, and in USD micro-units; execution may cost at
   * most this
   */
  amount: string
  token: string
  amount_micros: string
  state: 'pending' | 'approved' | 'denied' | 'consumed'
  created_at: number
  /** unix ms; a row not consumed by then is expired whatever its state */
  expires_at: number
  decided_at: number | null
  consumed_at: number | null
}

export interface ApprovalTables {
  platform_approvals: PlatformApprovalsTable
}
