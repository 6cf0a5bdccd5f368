import type { AutoId } from './foundation.js'

/** Solana swaps the daemon built and co-signed (301): built -> confirmed | failed | expired. */
export interface SolSwapsTable {
  id: AutoId
  /** the fee payer's (solver's) signature: the transaction id, known before the user signs */
  signature: string
  network: string
  kind: string
  user: string
  in_symbol: string
  out_symbol: string
  out_mint: string
  /** base units as decimal strings: u64 fits no signed integer column */
  in_amount: string
  out_amount: string
  blockhash: string
  last_valid_block_height: number
  status: 'built' | 'confirmed' | 'failed' | 'expired'
  slot: number | null
  /** JSON TransactionError when failed */
  err: string | null
  /** order in which rows left 'built' (1, 2, ...); see the reservation rule in daemon/sol/swap-store.ts */
  settled_seq: number | null
  created_at: number
  updated_at: number
}

export interface SolanaTables {
  sol_swaps: SolSwapsTable
}
