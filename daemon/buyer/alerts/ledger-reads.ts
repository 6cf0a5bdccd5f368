import { type Kysely, type SqlBool, sql } from 'kysely'
import type { Database } from '../../store/database.js'
import { countsWhateverItsAge } from '../budget-store.js'
import { WINDOW_MS } from '../budgets.js'
import type { SpendRow } from '../spends.js'

/**
 * What the alert rules read from the spends ledger about one spend: sums over what is ordered
 * before it, by (created_at, id). The order is the reservations' own (they are serialized per
 * user by the locks of daemon/buyer/budget-store.ts), so each figure is the same whichever
 * replica evaluates, and whenever: a retried evaluation finds the same crossing.
 */
type Db = Kysely<Database>
export type Subject = { agentId: string } | { userId: string }

/** Spends ordered before `s`; created in the same millisecond, the smaller id first. */
const before = (s: Pick<SpendRow, 'created_at' | 'id'>) =>
  sql<SqlBool>`(created_at < ${Number(s.created_at)} or (created_at = ${Number(s.created_at)} and id < ${s.id}))`

/** The subject's spends: one agent's, or those of every agent of a user. */
const subjectSql = (of: Subject) =>
  'agentId' in of
    ? sql<SqlBool>`agent_id = ${of.agentId}`
    : sql<SqlBool>`agent_id in (select id from platform_agents where user_id = ${of.userId})`

/**
 * What counts in a budget window just before `s`, as daemon/buyer/budget-store.ts counts it
 * (reserved and confirmed spends, a channel's escrow and a held auth-capture hold whatever their
 * age), with the window ending at `s`'s own time.
 */
export async function windowBefore(db: Db, of: Subject, windowMs: number, s: SpendRow): Promise<bigint> {
  const q = db
    .selectFrom('platform_spends')
    .select(sql<string>`cast(coalesce(sum(amount_micros), 0) as text)`.as('sum'))
    .where(subjectSql(of))
    .where('state', '!=', 'released')
    .where(sql<SqlBool>`(created_at > ${Number(s.created_at) - windowMs} or ${countsWhateverItsAge})`)
    .where(before(s))
  return BigInt((await q.executeTakeFirstOrThrow()).sum ?? 0)
}

/** spend rate: the agent's spend in the period ending at `s` (before it), and in the 7 days before that period. */
export async function rateFigures(
  db: Db,
  agentId: string,
  periodMs: number,
  s: SpendRow,
): Promise<{ beforeMicros: bigint; baselineMicros: bigint }> {
  const t = Number(s.created_at)
  const sumIn = (from: number, to: number, cut?: boolean) => {
    let q = db
      .selectFrom('platform_spends')
      .select(sql<string>`cast(coalesce(sum(amount_micros), 0) as text)`.as('sum'))
      .where('agent_id', '=', agentId)
      .where('state', '!=', 'released')
      .where('created_at', '>', from)
      .where('created_at', '<=', to)
    if (cut) q = q.where(before(s))
    return q.executeTakeFirstOrThrow().then((r) => BigInt(r.sum ?? 0))
  }
  return {
    beforeMicros: await sumIn(t - periodMs, t, true),
    baselineMicros: await sumIn(t - periodMs - WINDOW_MS.week, t - periodMs),
  }
}

/** Whether the subject paid `host` before `s` (a released spend paid nothing). */
export async function paidHostBefore(db: Db, of: Subject, host: string, s: SpendRow): Promise<boolean> {
  const q = db
    .selectFrom('platform_spends')
    .select('id')
    .where(subjectSql(of))
    .where('host', '=', host)
    .where('state', '!=', 'released')
    .where(before(s))
  return (await q.limit(1).executeTakeFirst()) !== undefined
}

/** The agent's spends made since `since` and not released: what one pay, send or swap recorded. */
export const spendsSince = (db: Db, agentId: string, since: number): Promise<SpendRow[]> =>
  db
    .selectFrom('platform_spends')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('created_at', '>=', since)
    .where('state', '!=', 'released')
    .orderBy('created_at')
    .orderBy('id')
    .execute()
