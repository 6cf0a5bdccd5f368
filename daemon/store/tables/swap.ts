/**
 * Base swap orders being relayed (100), by (chain, user, nonce): the claim that makes one signed
 * order relay once across api replicas. The primary key decides; a row names its relay's hash once sent.
 */
export interface SwapClaimsTable {
  chain_id: number
  /** lower-case 0x address */
  user_address: string
  /** the order's router nonce, decimal */
  nonce: string
  /** random id of the claim, so only its holder releases it or records its hash */
  claim_id: string
  /** 0x hash of the relayed transaction; null while the claim's relay is still being checked */
  hash: string | null
  created_at: number
}

export interface SwapTables {
  swap_claims: SwapClaimsTable
}
