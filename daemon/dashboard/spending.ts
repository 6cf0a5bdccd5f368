import { sql } from 'kysely'
import { SPENDING_DAYS, type SpendingDay } from '../../src/sdk/dashboard/spending.js'
import { microsToUsd } from '../buyer/limits.js'
import type { Store } from '../store/store.js'

const DAY_MS = 86_400_000

/**
 * An agent's spending per UTC day over the `days` days ending with the day of `now`, oldest first,
 * one entry per day (a day with no spend is "0"): the agent page's chart (src/sdk/dashboard/spending.ts).
 *
 * Totalled by the store in one grouped query on the (agent_id, created_at) index: `created_at` is
 * epoch milliseconds, so `created_at / 86400000` is the UTC day number on both dialects (integer
 * division of integers on SQLite and of a bigint on PostgreSQL). The sums come back as a number on
 * SQLite and a numeric string on PostgreSQL; both go through BigInt (exact on SQLite up to 2^53 micros, nine billion
 * dollars, a day).
 * Released spends moved nothing and are left out, as the limits leave them out.
 */
export async function spendingByDay(
  store: Store,
  agentId: string,
  now = Date.now(),
  days = SPENDING_DAYS,
): Promise<SpendingDay[]> {
  const today = Math.floor(now / DAY_MS)
  const first = today - days + 1
  const dayNo = sql<number | string>`created_at / ${sql.lit(DAY_MS)}`
  const rows = await store.db
    .selectFrom('platform_spends')
    .select([
      dayNo.as('day_no'),
      sql<number | string>`sum(amount_micros)`.as('micros'),
      sql<number | string>`count(*)`.as('n'),
    ])
    .where('agent_id', '=', agentId)
    .where('state', '!=', 'released')
    .where('created_at', '>=', first * DAY_MS)
    .where('created_at', '<', (today + 1) * DAY_MS)
    .groupBy(dayNo)
    .execute()
  const byDay = new Map(rows.map((r) => [Number(r.day_no), r]))
  return Array.from({ length: days }, (_, i) => {
    const r = byDay.get(first + i)
    return {
      day: new Date((first + i) * DAY_MS).toISOString().slice(0, 10),
      usd: microsToUsd(r ? BigInt(r.micros) : 0n),
      count: r ? Number(r.n) : 0,
    }
  })
}
