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
}

export interface FacilitatorTables {
  x402_settlements: X402SettlementsTable
}
