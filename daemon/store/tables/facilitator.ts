import type { ColumnType } from 'kysely'
import type { AutoId } from './foundation.js'

/** x402 settlements (200): one row per attempt to settle an authorization. */
export interface X402SettlementsTable {
  id: AutoId
  /** what makes the authorization unique on chain: network, asset, payer and nonce */
  auth_key: string
  network: string
  method: string
  payer: string | null
  pay_to: string
  asset: string
  /** base units, as a decimal string (u256 fits no integer column) */
  amount: string
  state: 'pending' | 'settled' | 'failed'
  tx: string | null
  reason: string | null
  message: string | null
  created_at: number
  updated_at: number
  /**
   * 1 once a settle answered this row's outcome to its caller (210); a pending row finished in the background is 0
   * until a retry is told
   */
  reported: ColumnType<number, number | undefined, number>
}

/** x402 payment identifiers (210): a client-chosen id bound, per seller, to the first payload that used it. */
export interface X402PaymentIdsTable {
  id: AutoId
  /** the seller the id is scoped to: the requirements' payTo (EVM addresses lowercased) */
  scope: string
  payment_id: string
  /** sha256 of the signed payload and the terms it pays: what "the same payment" means */
  fingerprint: string
  network: string
  /** the first decided /verify answer (JSON), replayed for the same payload */
  verify_answer: string | null
  /** the first decided /settle refusal (JSON); a settled or pending payment is read from its settlement row */
  settle_answer: string | null
  settlement_id: number | null
  created_at: number
  updated_at: number
}

export interface FacilitatorTables {
  x402_settlements: X402SettlementsTable
  x402_payment_ids: X402PaymentIdsTable
}
