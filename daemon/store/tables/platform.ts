import type { ColumnType } from 'kysely'

/** Platform users (500): own agents and seller endpoints; bound to a wallet once one signs in. */
export interface PlatformUsersTable {
  id: string
  /** checksummed 0x address, or null for a user created by script (local profile) */
  wallet: string | null
  name: string | null
  /** epoch milliseconds */
  created_at: number
  /** budgets across all the user's agents (630), USD decimal strings; null = no limit of that kind */
  per_payment_usd: BudgetColumn
  hourly_usd: BudgetColumn
  daily_usd: BudgetColumn
  weekly_usd: BudgetColumn
  monthly_usd: BudgetColumn
}

/** A budget column added later (630): optional on insert, null meaning no limit. */
type BudgetColumn = ColumnType<string | null, string | null | undefined, string | null>

/** User keys (500): only the SHA-256 of `parx-u-...` is kept. */
export interface PlatformUserKeysTable {
  id: string
  user_id: string
  key_hash: string
  /** `parx-u-…9f3c` */
  hint: string
  created_at: number
  revoked_at: number | null
}

/** Agents (500): a wallet on one network whose key is sealed with the platform wallet key. */
export interface PlatformAgentsTable {
  id: string
  user_id: string
  name: string
  network: string
  /** checksummed 0x address of the agent's wallet */
  address: string
  /** the wallet's private key, AES-256-GCM sealed (daemon/platform/wallet-seal.ts); never returned */
  wallet_sealed: string
  /** spending limits in USD as decimal strings; null = no limit of that kind */
  per_payment_usd: string | null
  daily_usd: string | null
  /** the other rolling windows (630) */
  hourly_usd: BudgetColumn
  weekly_usd: BudgetColumn
  monthly_usd: BudgetColumn
  /** JSON array of host names, or null for any host */
  allowed_hosts: string | null
  created_at: number
  /** when the owner froze the agent (unix ms; 620), null while it may spend */
  frozen_at: number | null
  /** 670: above this USD amount a pay or send waits for the owner's approval; null: never asks */
  approve_above_usd: string | null
}

/** Agent keys (500): only the SHA-256 of `parx-a-...` is kept. */
export interface PlatformAgentKeysTable {
  id: string
  agent_id: string
  key_hash: string
  hint: string
  label: string | null
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

/**
 * The spends ledger (500): one row per pay, send or swap, written as `reserved` in the same
 * transaction that checked the agent's limits, before anything is signed. A spend that moved
 * nothing is `released` and stops counting; `confirmed` once on chain. A signed pay spend stays
 * `reserved` until its payment has expired (520), whatever the seller answered.
 */
export interface PlatformSpendsTable {
  /** uuid: the send's or swap's id in answers */
  id: string
  agent_id: string
  kind: 'send' | 'swap' | 'pay'
  /** USD micro-units, rounded up (daemon/buyer/limits.ts) */
  amount_micros: number | string
  token: string
  /** the token amount as the caller gave it */
  amount: string
  recipient: string | null
  state: 'reserved' | 'confirmed' | 'released'
  tx: string | null
  user_op: string | null
  reason: string | null
  created_at: number
  updated_at: number
  /** pay, once signed (520): the last unix second the signed payment can be used on chain */
  valid_before: number | string | null
  /** pay, once signed (520): what tells on chain whether it was used (daemon/buyer/pay/proof.ts, JSON) */
  proof: string | null
  /** pay (530): the seller's host the limit check saw; null for sends, swaps and spends before 530 */
  host: string | null
}

/** Seller endpoints (501): served at /paid/<id>; a deleted one keeps its row (deleted_at) and is no longer served. */
export interface PlatformEndpointsTable {
  id: string
  user_id: string
  name: string | null
  upstream_url: string
  /** decimal string in token units */
  price: string
  network: string
  token: string
  /** checksummed 0x address paid */
  pay_to: string
  pay_to_agent_id: string | null
  created_at: number
  deleted_at: number | null
  /** 510: 1 when listed in the bazaar (GET {facilitator_url}/discovery/resources). */
  discoverable: number
  /** 510: what the bazaar listing and the 402 say the resource is. */
  description: string | null
  /** 510: where settlement outcomes are POSTed, signed with webhook_secret (whsec_...). */
  webhook_url: string | null
  webhook_secret: string | null
  /** 510: last change of the endpoint (null: never changed since created_at). */
  updated_at: number | null
  /** 550: 1 when its 402 also offers x402 batch-settlement (payment channels). */
  batch_settlement: ColumnType<number, number | undefined, number>
  /** 560: 1 when its 402 also offers x402 auth-capture (held, captured after the upstream answered, refundable). */
  auth_capture: ColumnType<number, number | undefined, number>
}

/**
 * Webhook deliveries (510): a persisted queue; a row is delivered at least once, or given up after the last attempt.
 */
export interface PlatformWebhookDeliveriesTable {
  id: string
  endpoint_id: string
  event_key: string
  type: string
  /** the exact JSON bytes signed and sent */
  body: string
  attempts: number
  next_attempt_at: number
  delivered_at: number | null
  gave_up_at: number | null
  last_error: string | null
  created_at: number
}

export interface PlatformTables {
  platform_endpoints: PlatformEndpointsTable
  platform_webhook_deliveries: PlatformWebhookDeliveriesTable
  platform_users: PlatformUsersTable
  platform_user_keys: PlatformUserKeysTable
  platform_agents: PlatformAgentsTable
  platform_agent_keys: PlatformAgentKeysTable
  platform_spends: PlatformSpendsTable
}
