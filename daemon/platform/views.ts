import { networks } from '../../src/networks/registry.js'
import type { Agent, AgentKeyInfo } from '../../src/sdk/platform/agents.js'
import type { Limits, UserLimits, WindowsView } from '../../src/sdk/platform/limits.js'
import { sendableTokens, sendMethodOf } from '../../src/sdk/platform/networks.js'
import type { User } from '../../src/sdk/platform/users.js'
import { userBudget } from '../buyer/budget-store.js'
import {
  type Budget,
  type BudgetState,
  microsToUsd,
  perPaymentMicros,
  remainingIn,
  roomMicros,
  WINDOW_FIELD,
  WINDOWS,
  type WindowSpent,
} from '../buyer/budgets.js'
import { freezeView } from '../buyer/freeze.js'
import { type AgentKeyRow, type AgentRow, policyOf, type UserRow } from './store.js'

/** Rows as the contract (src/sdk/platform) shows them: never a key, a hash or a sealed wallet. */
const iso = (ms: number | string) => new Date(Number(ms)).toISOString()

export function userView(u: UserRow, counts: { agents: number; endpoints: number }): User {
  return {
    id: u.id,
    wallet: (u.wallet as User['wallet']) ?? null,
    name: u.name,
    createdAt: iso(u.created_at),
    ...counts,
  }
}

const usd = (m: bigint | null) => (m === null ? null : microsToUsd(m))

function windowsView(budget: Budget, spent: WindowSpent): WindowsView {
  const left = remainingIn(budget, spent)
  const view = {} as WindowsView
  for (const w of WINDOWS)
    view[w] = { limitUsd: budget[WINDOW_FIELD[w]], spentUsd: microsToUsd(spent[w]), remainingUsd: usd(left[w]) }
  return view
}

/** The agent's limits, taken from its row (as just updated), with what counts now (`state`, from spends.budget). */
export function limitsView(a: AgentRow, state: BudgetState): Limits {
  const policy = policyOf(a)
  const windows = windowsView(policy, state.agent.spent)
  const room = roomMicros({ ...state, agent: { ...state.agent, budget: policy } })
  const perPayment = perPaymentMicros({ ...state, agent: { ...state.agent, budget: policy } })
  const may = room === null ? perPayment : perPayment === null || room < perPayment ? room : perPayment
  return {
    ...policy,
    approveAboveUsd: a.approve_above_usd ?? null,
    spentTodayUsd: windows.day.spentUsd,
    remainingTodayUsd: windows.day.remainingUsd,
    windows,
    user: { perPaymentUsd: state.user.budget.perPaymentUsd, windows: windowsView(state.user.budget, state.user.spent) },
    mayStillSpendUsd: usd(may),
  }
}

/** The user's budgets (from its row, as just updated) with what counts now across its agents. */
export function userLimitsView(u: UserRow, spent: WindowSpent): UserLimits {
  const budget = userBudget(u)
  return { ...budget, windows: windowsView(budget, spent) }
}

export function agentView(
  a: AgentRow,
  state: BudgetState,
  tokenAddress: (network: string, symbol: string) => string | null,
): Agent {
  const n = networks[a.network]!
  return {
    id: a.id,
    name: a.name,
    network: a.network,
    chainId: n.chainId!,
    wallet: a.address as Agent['wallet'],
    sendMethod: sendMethodOf(n),
    tokens: sendableTokens(n).map((t) => ({
      symbol: t.symbol,
      decimals: t.decimals,
      address: tokenAddress(a.network, t.symbol) as Agent['wallet'] | null,
    })),
    createdAt: iso(a.created_at),
    limits: limitsView(a, state),
    ...freezeView(a),
  }
}

export function agentKeyView(k: AgentKeyRow): AgentKeyInfo {
  return {
    id: k.id,
    agentId: k.agent_id,
    label: k.label,
    hint: k.hint,
    createdAt: iso(k.created_at),
    lastUsedAt: k.last_used_at === null ? null : iso(k.last_used_at),
    revokedAt: k.revoked_at === null ? null : iso(k.revoked_at),
  }
}
