import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { openTestStore, testDialect, testStoreUrl } from '../../test/helpers/store.js'
import { type PlatformStore, platformStore } from '../platform/store.js'
import { openStore, type Store } from '../store/store.js'
import { spentByWindow } from './budget-store.js'
import { WINDOW_MS } from './budgets.js'
import { type SpendsLedger, spendsLedger } from './spends.js'

/**
 * Budgets per window in the store (budget-store.ts): what counts in each rolling window, for one
 * agent and for all of a user's agents, and the reservation refusing exactly at each window's
 * edge, in either scope. Time is never waited for: aged ledger rows are inserted directly. Run on
 * SQLite and PostgreSQL (storeSensitive); on PostgreSQL, two stores (two replicas' pools) race.
 */
let store: Store
let spends: SpendsLedger
let platform: PlatformStore
let userId: string
let agentId: string
let siblingId: string
const M = 1_000_000n

const addAgent = async (id: string, user: string) =>
  store.db
    .insertInto('platform_agents')
    .values({
      id,
      user_id: user,
      name: 'a',
      network: 'local-base',
      address: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`,
      wallet_sealed: 'x',
      per_payment_usd: null,
      daily_usd: null,
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
const addUser = async (id: string) =>
  store.db.insertInto('platform_users').values({ id, wallet: null, name: 'u', created_at: Date.now() }).execute()

/** A ledger row `ageMs` old. */
async function aged(
  agent: string,
  micros: bigint,
  ageMs: number,
  o: { state?: 'reserved' | 'confirmed' | 'released'; deposit?: boolean } = {},
) {
  const at = Date.now() - ageMs
  const id = randomUUID()
  await store.db
    .insertInto('platform_spends')
    .values({
      id,
      agent_id: agent,
      kind: 'pay',
      amount_micros: micros.toString(),
      token: 'USDC',
      amount: (Number(micros) / 1e6).toString(),
      recipient: null,
      host: 'seller.test',
      state: o.state ?? 'confirmed',
      tx: null,
      user_op: null,
      reason: null,
      created_at: at,
      updated_at: at,
    })
    .execute()
  if (o.deposit)
    await sql`update platform_spends set channel_id = ${`0x${'ab'.repeat(32)}`}, channel_role = 'deposit' where id = ${id}`.execute(
      store.db,
    )
}

const reserve = (agent: string, micros: bigint, s: SpendsLedger = spends) =>
  s.reserve({
    agentId: agent,
    kind: 'send',
    amountMicros: micros,
    token: 'USDC',
    amount: (Number(micros) / 1e6).toString(),
    recipient: '0x00000000000000000000000000000000000000cc',
  })
const refusal = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (e) {
    if (e instanceof BaseError) return e.toJSON()
    throw e
  }
  throw new Error('the spend was allowed')
}

beforeEach(async () => {
  store = await openTestStore()
  spends = spendsLedger(store)
  platform = platformStore(store, undefined)
  userId = randomUUID()
  agentId = randomUUID()
  siblingId = randomUUID()
  await addUser(userId)
  await addAgent(agentId, userId)
  await addAgent(siblingId, userId)
})
afterEach(async () => store.close())

const MIN = 60_000
describe(`budgets per window in the store (${testDialect()})`, () => {
  it('sums each rolling window in one query: by age, released left out, escrow in every window whatever its age', async () => {
    await aged(agentId, 1n * M, 59 * MIN)
    await aged(agentId, 2n * M, 61 * MIN)
    await aged(agentId, 4n * M, WINDOW_MS.day + MIN)
    await aged(agentId, 8n * M, WINDOW_MS.week + MIN)
    await aged(agentId, 16n * M, WINDOW_MS.month + MIN)
    await aged(agentId, 32n * M, MIN, { state: 'released' })
    await aged(agentId, 64n * M, 40 * 24 * 60 * MIN, { deposit: true })
    await aged(agentId, 128n * M, MIN, { state: 'reserved' })
    expect(await spentByWindow(store.db, { agentId }, Date.now())).toEqual({
      hour: 193n * M,
      day: 195n * M,
      week: 199n * M,
      month: 207n * M,
    })
    expect(await spends.spentToday(agentId)).toBe(195n * M)
    // The voucher's own channel is left out (it draws on that escrow).
    expect(await spentByWindow(store.db, { agentId }, Date.now(), `0x${'ab'.repeat(32)}`)).toEqual({
      hour: 129n * M,
      day: 131n * M,
      week: 135n * M,
      month: 143n * M,
    })
  })

  it("a user's windows count all its agents and no other user's", async () => {
    const stranger = randomUUID(),
      theirs = randomUUID()
    await addUser(stranger)
    await addAgent(theirs, stranger)
    await aged(agentId, 1n * M, MIN)
    await aged(siblingId, 2n * M, 2 * 60 * MIN)
    await aged(theirs, 100n * M, MIN)
    expect(await spends.userSpent(userId)).toEqual({ hour: 1n * M, day: 3n * M, week: 3n * M, month: 3n * M })
    const b = await spends.budget(agentId)
    expect(b.agent.spent.day).toBe(1n * M)
    expect(b.user.spent.day).toBe(3n * M)
  })

  for (const [w, field, inside, outside] of [
    ['hour', 'hourlyUsd', 59 * MIN, 61 * MIN],
    ['day', 'dailyUsd', WINDOW_MS.day - MIN, WINDOW_MS.day + MIN],
    ['week', 'weeklyUsd', WINDOW_MS.week - MIN, WINDOW_MS.week + MIN],
    ['month', 'monthlyUsd', WINDOW_MS.month - MIN, WINDOW_MS.month + MIN],
  ] as const) {
    it(`agent ${w}: a spend just inside the window counts, one just outside does not; the reservation stops exactly at the edge`, async () => {
      await platform.setLimits(agentId, { [field]: '1' })
      await aged(agentId, 600_000n, inside)
      await aged(agentId, 5n * M, outside)
      await reserve(agentId, 400_000n)
      expect(await refusal(reserve(agentId, 1n))).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        limit: w,
        scope: 'agent',
        limitUsd: '1',
        remainingUsd: '0',
      })
      // The sibling agent has no agent limit: it is not held by this one's.
      await reserve(siblingId, 10n * M)
    })

    it(`user ${w}: all agents together stop exactly at the user's edge`, async () => {
      await platform.setUserLimits(userId, { [field]: '1' })
      await aged(siblingId, 600_000n, inside)
      await aged(siblingId, 5n * M, outside)
      await reserve(agentId, 300_000n)
      await reserve(siblingId, 100_000n)
      expect(await refusal(reserve(agentId, 1n))).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        limit: w,
        scope: 'user',
        limitUsd: '1',
        remainingUsd: '0',
      })
      expect(await refusal(reserve(siblingId, 1n))).toMatchObject({ limit: w, scope: 'user' })
    })
  }

  it('released money comes back to every window of both scopes', async () => {
    await platform.setUserLimits(userId, { perPaymentUsd: '2', monthlyUsd: '1' })
    expect(await refusal(reserve(agentId, 2n * M + 1n))).toMatchObject({ limit: 'perPayment', scope: 'user' })
    const r = await reserve(agentId, 1n * M)
    expect(await refusal(reserve(siblingId, 1n))).toMatchObject({ limit: 'month', scope: 'user' })
    await spends.release(r.id, 'moved nothing')
    await reserve(siblingId, 1n * M)
  })

  it('user limits: set, cleared with null, left alone when left out', async () => {
    let u = await platform.setUserLimits(userId, { hourlyUsd: '1', weeklyUsd: '7' })
    expect([u.hourly_usd, u.weekly_usd, u.daily_usd]).toEqual(['1', '7', null])
    u = await platform.setUserLimits(userId, { hourlyUsd: null })
    expect([u.hourly_usd, u.weekly_usd]).toEqual([null, '7'])
  })

  it('concurrent reservations on two agents of one user, through two stores (replicas), never pass the user budget by one', async () => {
    // Two pools on one PostgreSQL database are two replicas; SQLite has one writer, one store.
    const second = testDialect() === 'postgres' ? await openSecond() : store
    try {
      await platform.setUserLimits(userId, { hourlyUsd: '1' })
      await platform.setLimits(agentId, { weeklyUsd: '0.7' })
      const other = spendsLedger(second)
      const tries = Array.from({ length: 30 }, (_, i) =>
        reserve(i % 2 ? agentId : siblingId, 100_000n, i % 3 ? spends : other).then(
          () => 1,
          (e: BaseError) => {
            expect(e.code).toBe('LIMIT_EXCEEDED')
            return 0
          },
        ),
      )
      const ok = (await Promise.all(tries)).reduce((a, b) => a + b, 0)
      expect(ok).toBe(10)
      expect((await spends.userSpent(userId)).hour).toBe(1n * M)
    } finally {
      if (second !== store) await second.close()
    }
  })
})

/** A second store on the same PostgreSQL database as `store`. */
async function openSecond(): Promise<Store> {
  const r = await sql<{ db: string }>`select current_database() as db`.execute(store.db)
  const base = new URL((await testStoreUrl())!)
  base.pathname = `/${r.rows[0]!.db}`
  return openStore({ file: ':memory:', url: base.toString() })
}
