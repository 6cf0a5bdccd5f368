import { networks } from '../../src/networks/registry.js'
import type { Agent, AgentKeyInfo } from '../../src/sdk/platform/agents.js'
import type { Limits } from '../../src/sdk/platform/limits.js'
import { sendableTokens, sendMethodOf } from '../../src/sdk/platform/networks.js'
import type { User } from '../../src/sdk/platform/users.js'
import { freezeView } from './freeze.js'
import { microsToUsd, remainingMicros } from './limits.js'
import { policyOf, type AgentKeyRow, type AgentRow, type UserRow } from './store.js'

/** Rows as the contract (src/sdk/platform) shows them: never a key, a hash or a sealed wallet. */
const iso = (ms: number | string) => new Date(Number(ms)).toISOString()

export function userView(u: UserRow, counts: { agents: number; endpoints: number }): User {
  return { id: u.id, wallet: (u.wallet as User['wallet']) ?? null, name: u.name, createdAt: iso(u.created_at), ...counts }
}

export function limitsView(a: AgentRow, spentTodayMicros: bigint): Limits {
  const policy = policyOf(a)
  const remaining = remainingMicros(policy, spentTodayMicros)
  return {
    ...policy,
    approveAboveUsd: a.approve_above_usd ?? null,
    spentTodayUsd: microsToUsd(spentTodayMicros),
    remainingTodayUsd: remaining === null ? null : microsToUsd(remaining),
  }
}

export function agentView(a: AgentRow, spentTodayMicros: bigint, tokenAddress: (network: string, symbol: string) => string | null): Agent {
  const n = networks[a.network]!
  return {
    id: a.id, name: a.name, network: a.network, chainId: n.chainId!, wallet: a.address as Agent['wallet'],
    sendMethod: sendMethodOf(n),
    tokens: sendableTokens(n).map((t) => ({ symbol: t.symbol, decimals: t.decimals, address: tokenAddress(a.network, t.symbol) as Agent['wallet'] | null })),
    createdAt: iso(a.created_at),
    limits: limitsView(a, spentTodayMicros),
    ...freezeView(a),
  }
}

export function agentKeyView(k: AgentKeyRow): AgentKeyInfo {
  return {
    id: k.id, agentId: k.agent_id, label: k.label, hint: k.hint, createdAt: iso(k.created_at),
    lastUsedAt: k.last_used_at === null ? null : iso(k.last_used_at), revokedAt: k.revoked_at === null ? null : iso(k.revoked_at),
  }
}
