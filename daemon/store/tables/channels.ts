/**
 * An agent's x402 batch-settlement channel (545). `deposited`, `signed` (the highest cumulative
 * voucher ever signed: what the seller could claim at most), `charged` (the cumulative the seller
 * says it charged) and `refunded` are base units as decimal strings. `pending_deposit` is a signed
 * deposit not yet seen on chain, with its spend (`pending_spend`, which holds its proof). `lease`
 * and `lease_until` (epoch ms) serialise pays on one channel across replicas.
 */
export interface PlatformPayChannelsTable {
  /** the channel id (0x, lowercase) */
  id: string
  agent_id: string
  network: string
  token: string
  /** the ChannelConfig, JSON */
  config: string
  receiver: string
  receiver_authorizer: string
  /** the resource last paid through it: where a cooperative refund is asked */
  url: string
  host: string
  deposited: string
  signed: string
  charged: string
  refunded: string
  refund_nonce: string
  pending_deposit: string | null
  pending_spend: string | null
  lease: string | null
  /**
   * a withdrawal started on the contract (546): amount asked, when, and from when (chain time, epoch ms) it can be
   * finalized; null when none is pending
   */
  withdraw_amount: string | null
  withdraw_requested_at: number | string | null
  withdraw_finalizable_at: number | string | null
  /** what finalized withdrawals returned to the wallet (546) */
  withdrawn: string
  lease_until: number | string | null
  created_at: number | string
  updated_at: number | string
}

/** The spends ledger's link to a channel (545): a deposit (escrow, counted until refunded) or a voucher drawn on it. */
export interface ChannelSpendColumns {
  channel_id: string | null
  channel_role: 'deposit' | 'voucher' | null
}

export interface ChannelTables {
  platform_pay_channels: PlatformPayChannelsTable
}
