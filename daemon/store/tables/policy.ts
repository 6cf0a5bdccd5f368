/**
 * Payee and network rules (640): one row per owner of rules. `scope` 'agent' (owner_id: the agent;
 * its host allow-list stays platform_agents.allowed_hosts), 'user' (the user's rules for all its
 * agents) or 'default' (owner_id: the user; what its agents created later start with, limits included).
 */
export interface PlatformPayeeRulesTable {
  scope: 'agent' | 'user' | 'default'
  owner_id: string
  /** JSON object of the lists (src/sdk/platform/policy.ts PayeeRules); a list left out is not set */
  rules: string
  /** 'default' only: the new agents' limits in USD, null for none */
  per_payment_usd: string | null
  daily_usd: string | null
  /** epoch milliseconds */
  updated_at: number
}

export interface PolicyTables {
  platform_payee_rules: PlatformPayeeRulesTable
}
