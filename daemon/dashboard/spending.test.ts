import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { spendingByDay } from './spending.js'

/** The chart's per-day totals, computed by the store on SQLite and on PostgreSQL (the postgres project runs this file again). */
let store: Store
let agentId: string
let other: string
const DAY = 86_400_000
// 2026-11-27T10:00:00Z: "today" in these cases.
const NOW = Date.UTC(2026, 10, 27, 10)

beforeEach(async () => {
  store = await openTestStore()
  const userId = randomUUID()
  await store.db.insertInto('platform_users').values({ id: userId, wallet: null, name: 'u', created_at: NOW }).execute()
  agentId = randomUUID()
  other = randomUUID()
  for (const [i, id] of [agentId, other].entries()) {
    await store.db
      .insertInto('platform_agents')
      .values({
        id,
        user_id: userId,
        name: id.slice(0, 8),
        network: 'local-base',
        address: `0x${String(i + 1).repeat(40)}`,
        wallet_sealed: 'x',
        per_payment_usd: null,
        daily_usd: '10',
        allowed_hosts: null,
        created_at: NOW,
      })
      .execute()
  }
})
afterEach(async () => store.close())

async function spend(
  at: number,
  micros: bigint,
  state: 'reserved' | 'confirmed' | 'released' = 'confirmed',
  agent = agentId,
) {
  await store.db
    .insertInto('platform_spends')
    .values({
      id: randomUUID(),
      agent_id: agent,
      kind: 'pay',
      amount_micros: micros.toString(),
      token: 'USDC',
      amount: '0',
      recipient: null,
      host: 'seller.test',
      state,
      tx: null,
      user_op: null,
      reason: null,
      created_at: at,
      updated_at: at,
    })
    .execute()
}

describe(`spending per UTC day (${testDialect()})`, () => {
  it('an agent with no spends: 30 days, oldest first, ending today (UTC), every one 0', async () => {
    const days = await spendingByDay(store, agentId, NOW)
    expect(days).toHaveLength(30)
    expect(days[0]).toEqual({ day: '2026-10-29', usd: '0', count: 0 })
    expect(days[29]).toEqual({ day: '2026-11-27', usd: '0', count: 0 })
    expect(new Set(days.map((d) => d.day)).size).toBe(30)
  })

  it('sums reserved and confirmed spends by UTC day; released ones, other agents and days outside the window do not count', async () => {
    const midnight = Date.UTC(2026, 10, 27)
    await spend(midnight, 1_250_000n) // today's first millisecond
    await spend(midnight - 1, 500_000n) // yesterday's last
    await spend(midnight - 2, 250_000n, 'reserved') // yesterday, still pending on chain: counts, as the limits count it
    await spend(midnight - 3, 9_000_000n, 'released') // moved nothing
    await spend(NOW, 3_000_000n, 'confirmed', other)
    await spend(midnight - 29 * DAY, 100_000n) // the first day of the window
    await spend(midnight - 29 * DAY - 1, 7_000_000n) // the day before it
    await spend(NOW + 1, 2_000_001n) // later today
    const days = await spendingByDay(store, agentId, NOW)
    expect(days).toHaveLength(30)
    const byDay = Object.fromEntries(days.map((d) => [d.day, d]))
    expect(byDay['2026-11-27']).toEqual({ day: '2026-11-27', usd: '3.250001', count: 2 })
    expect(byDay['2026-11-26']).toEqual({ day: '2026-11-26', usd: '0.75', count: 2 })
    expect(byDay['2026-10-29']).toEqual({ day: '2026-10-29', usd: '0.1', count: 1 })
    expect(days.filter((d) => d.usd !== '0').map((d) => d.day)).toEqual(['2026-10-29', '2026-11-26', '2026-11-27'])
    expect(days.filter((d) => d.usd === '0').every((d) => d.count === 0)).toBe(true)
  })

  it('sums whole micros, not floats: 0.1 + 0.2 is 0.3', async () => {
    await spend(NOW, 100_000n)
    await spend(NOW, 200_000n)
    const days = await spendingByDay(store, agentId, NOW)
    expect(days[29]).toEqual({ day: '2026-11-27', usd: '0.3', count: 2 })
  })

  it('a window of another length, and "today" taken from now', async () => {
    const days = await spendingByDay(store, agentId, Date.UTC(2026, 0, 2, 23, 59), 3)
    expect(days.map((d) => d.day)).toEqual(['2025-12-31', '2026-01-01', '2026-01-02'])
  })
})
