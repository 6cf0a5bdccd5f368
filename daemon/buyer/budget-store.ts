import { type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely'
import { BaseError } from '../../src/errors/index.js'
import type { Database } from '../store/database.js'
import type { StoreDialect } from '../store/migrations/migration.js'
import type { PlatformAgentsTable, PlatformUsersTable } from '../store/tables/platform.js'
import { type Budget, type BudgetState, WINDOW_MS, WINDOWS, type WindowSpent } from './budgets.js'

// The rows the budgets read; ../platform/store.ts imports this file and re-exports them, so they live here.
export type UserRow = Selectable<PlatformUsersTable>
export type AgentRow = Selectable<PlatformAgentsTable>

/**
 * The store half of the budgets: locking both scopes' rows and summing the ledger per window. A
 * reservation calls `lockForSpend` first in its transaction: on PostgreSQL it takes the user's row
 * and then the agent's with `SELECT ... FOR UPDATE`, always in that order, so two replicas
 * reserving for agents of one user wait on each other instead of deadlocking, and a user's budget
 * is decided one spend at a time across all its agents; on SQLite the one write transaction does
 * the same. No process memory is involved: every replica sees the same sums.
 */
type Db = Kysely<Database>

export async function lockForSpend(
  tx: Db,
  dialect: StoreDialect,
  agentId: string,
): Promise<{ agent: AgentRow; user: UserRow }> {
  // The owner never changes, so reading it before the locks is safe.
  const owner = await tx.selectFrom('platform_agents').select('user_id').where('id', '=', agentId).executeTakeFirst()
  if (!owner) throw new BaseError('NOT_FOUND', `no agent ${agentId}`)
  let u = tx.selectFrom('platform_users').selectAll().where('id', '=', owner.user_id)
  let a = tx.selectFrom('platform_agents').selectAll().where('id', '=', agentId)
  if (dialect === 'postgres') {
    u = u.forUpdate()
    a = a.forUpdate()
  }
  const user = await u.executeTakeFirst()
  const agent = await a.executeTakeFirst()
  if (!user || !agent) throw new BaseError('NOT_FOUND', `no agent ${agentId}`)
  return { agent, user }
}

export const agentBudget = (a: AgentRow): Budget => ({
  perPaymentUsd: a.per_payment_usd,
  hourlyUsd: a.hourly_usd ?? null,
  dailyUsd: a.daily_usd,
  weeklyUsd: a.weekly_usd ?? null,
  monthlyUsd: a.monthly_usd ?? null,
})
export const userBudget = (u: UserRow): Budget => ({
  perPaymentUsd: u.per_payment_usd ?? null,
  hourlyUsd: u.hourly_usd ?? null,
  dailyUsd: u.daily_usd ?? null,
  weeklyUsd: u.weekly_usd ?? null,
  monthlyUsd: u.monthly_usd ?? null,
})

/**
 * Money still out of the wallet counts in every window whatever its age: a channel's escrow, and
 * an x402 auth-capture hold still held (daemon/buyer/holds/: the seller may capture it until its
 * deadline). Also what the alert rules' budget figures count (alerts/ledger-reads.ts).
 */
export const countsWhateverItsAge = sql<SqlBool>`(channel_role = 'deposit'
  or id in (select spend_id from platform_agent_holds where status = 'held'))`

/**
 * What counts in each window for one agent or for all of a user's agents, in one query with a
 * conditional sum per window over the rows of the longest one. Counted: reserved and confirmed
 * spends (released ones came back) created inside the window, and a channel's escrow whatever its
 * age (its row's amount is what is still in escrow, daemon/buyer/batch-settlement/store.ts: it counts
 * until it is back in the wallet), and likewise an auth-capture hold still held. `drawingOn` leaves out the escrow of
 * the channel a voucher is
 * paid from, which the voucher's own amount moves out of. Sums are cast to text: PostgreSQL's
 * numeric and SQLite's integer then read back the same, exactly.
 */
export async function spentByWindow(
  db: Db,
  of: { agentId: string } | { userId: string },
  now: number,
  drawingOn?: string,
): Promise<WindowSpent> {
  const lasting = countsWhateverItsAge
  const sumIn = (ms: number): RawBuilder<string> =>
    sql<string>`cast(coalesce(sum(
      case when created_at > ${now - ms} or ${lasting} then amount_micros else 0 end
    ), 0) as text)`
  let q = db
    .selectFrom('platform_spends')
    .select([
      sumIn(WINDOW_MS.hour).as('hour'),
      sumIn(WINDOW_MS.day).as('day'),
      sumIn(WINDOW_MS.week).as('week'),
      sumIn(WINDOW_MS.month).as('month'),
    ])
    .where('state', '!=', 'released')
    .where(sql<boolean>`(created_at > ${now - WINDOW_MS.month} or ${lasting})`)
  q =
    'agentId' in of
      ? q.where('agent_id', '=', of.agentId)
      : q.where('agent_id', 'in', (s) => s.selectFrom('platform_agents').select('id').where('user_id', '=', of.userId))
  if (drawingOn !== undefined)
    q = q.where(sql<boolean>`(channel_role is null or channel_role != 'deposit' or channel_id != ${drawingOn})`)
  const r = await q.executeTakeFirstOrThrow()
  const out = {} as WindowSpent
  for (const w of WINDOWS) out[w] = BigInt(r[w] ?? 0)
  return out
}

/** Both scopes' limits and sums at `now`. Inside a reservation, pass the rows `lockForSpend` returned. */
export async function budgetState(
  db: Db,
  agent: AgentRow,
  user: UserRow,
  now: number,
  drawingOn?: string,
): Promise<BudgetState> {
  // One after the other: inside a transaction both run on its one connection anyway.
  const a = await spentByWindow(db, { agentId: agent.id }, now, drawingOn)
  const u = await spentByWindow(db, { userId: user.id }, now, drawingOn)
  return { agent: { budget: agentBudget(agent), spent: a }, user: { budget: userBudget(user), spent: u } }
}
