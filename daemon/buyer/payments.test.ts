import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentsQuery, reportQuery } from '../../src/sdk/platform/history.js'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { paymentsPage, spendReport } from './payments.js'
import type { SpendRow } from './spends.js'

/**
 * The history's keyset pages and the report's window on the store under test (SQLite, and
 * PostgreSQL in the postgres project): ties on created_at are broken by id, a page never repeats
 * or skips a row even when rows are added between pages, and the filters hold.
 */
let store: Store
let agentId: string
let other: string
const T0 = Date.parse('2026-11-01T00:00:00Z')
const rows: SpendRow[] = []

beforeAll(async () => {
  store = await openTestStore()
  const userId = randomUUID()
  ;[agentId, other] = [randomUUID(), randomUUID()]
  await store.db.insertInto('platform_users').values({ id: userId, wallet: null, name: 'u', created_at: T0 }).execute()
  for (const id of [agentId, other]) {
    await store.db
      .insertInto('platform_agents')
      .values({
        id,
        user_id: userId,
        name: 'a',
        network: 'local-base',
        address: `0x${id.replace(/-/g, '').slice(0, 32)}00000000`,
        wallet_sealed: 'x',
        per_payment_usd: null,
        daily_usd: '10',
        allowed_hosts: null,
        created_at: T0,
      })
      .execute()
  }
  // 12 spends over 3 days, four of them sharing one millisecond (ties broken by id), one released; one of another agent.
  const at = [0, 1, 2, 3, 3, 3, 3, 86_400_000, 86_400_001, 2 * 86_400_000, 2 * 86_400_000 + 5, 2 * 86_400_000 + 6]
  for (const [i, dt] of at.entries()) {
    const kind = (['pay', 'send', 'swap'] as const)[i % 3]!
    rows.push({
      id: randomUUID(),
      agent_id: agentId,
      kind,
      amount_micros: 10_000 * (i + 1),
      token: kind === 'swap' ? 'USDC' : 'PUSD',
      amount: String((i + 1) / 100),
      recipient: null,
      host: kind === 'pay' ? (i % 2 ? 'a.test' : 'b.test') : null,
      state: i === 5 ? 'released' : 'confirmed',
      tx: null,
      user_op: null,
      reason: null,
      created_at: T0 + dt,
      updated_at: T0 + dt,
      valid_before: null,
      proof: null,
    })
  }
  rows.push({ ...rows[0]!, id: randomUUID(), agent_id: other })
  await store.db.insertInto('platform_spends').values(rows).execute()
})
afterAll(async () => store?.close())

const mine = () => rows.filter((r) => r.agent_id === agentId)
/** Newest first, ties on created_at by id, descending: the order the route promises. */
const ordered = () =>
  [...mine()].sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1)).map((r) => r.id)
const page = (q: Record<string, string>) => paymentsPage(store, agentId, paymentsQuery.parse(q))

describe('payments history on the store', () => {
  it('pages newest first through ties, each row once, then a null cursor', async () => {
    const seen: string[] = []
    let cursor: string | null | undefined
    let pages = 0
    do {
      const p = await page({ limit: '3', ...(cursor ? { cursor } : {}) })
      seen.push(...p.payments.map((x) => x.id))
      cursor = p.nextCursor
      pages++
    } while (cursor)
    expect(seen).toEqual(ordered())
    expect(pages).toBe(4)
  })

  it('a row written between pages does not shift the next page', async () => {
    const first = await page({ limit: '5' })
    const late = { ...rows[0]!, id: randomUUID(), created_at: T0 + 10 * 86_400_000, updated_at: T0 }
    await store.db.insertInto('platform_spends').values(late).execute()
    try {
      const second = await page({ limit: '5', cursor: first.nextCursor! })
      expect([...first.payments, ...second.payments].map((x) => x.id)).toEqual(ordered().slice(0, 10))
    } finally {
      await store.db.deleteFrom('platform_spends').where('id', '=', late.id).execute()
    }
  })

  it('filters by kind, host, since and until; another agent is never in it', async () => {
    const all = await page({ limit: '200' })
    expect(all.payments).toHaveLength(12)
    expect((await page({ kind: 'swap' })).payments.every((p) => p.kind === 'swap' && p.token === 'USDC')).toBe(true)
    expect((await page({ host: 'A.test' })).payments.map((p) => p.host)).toEqual(['a.test', 'a.test'])
    expect((await page({ since: '2026-11-02', until: '2026-11-03' })).payments).toHaveLength(2)
    expect((await page({ since: '2026-11-03T00:00:00.005Z' })).payments).toHaveLength(2)
  })

  it('the report totals the window, released spends left out', async () => {
    const r = await spendReport(store, agentId, reportQuery.parse({ since: '2026-11-01', until: '2026-11-04' }))
    expect(r.total).toEqual({ count: 11, usd: '0.72', pending: 0 })
    expect(r.byDay.map((d) => [d.day, d.count])).toEqual([
      ['2026-11-01', 6],
      ['2026-11-02', 2],
      ['2026-11-03', 3],
    ])
    expect(
      (await spendReport(store, agentId, reportQuery.parse({ since: '2026-11-02', until: '2026-11-04', kind: 'pay' })))
        .total.count,
    ).toBe(1)
    await expect(
      spendReport(store, agentId, reportQuery.parse({ since: '2025-01-01', until: '2026-11-04' })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' })
    await expect(
      spendReport(store, agentId, reportQuery.parse({ since: '2026-11-04', until: '2026-11-01' })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' })
  })

  it("the report sums the window's auth-capture holds per token: held, still held, captured and what came back", async () => {
    const hold = (
      spend: SpendRow,
      n: number,
      h: { status: string; max: string; captured?: string; voided?: string; refunded?: string },
    ) => ({
      id: `0x${String(n).padStart(64, '0')}`,
      spend_id: spend.id,
      agent_id: spend.agent_id,
      network: 'local-base',
      token: 'USDC',
      decimals: 6,
      escrow: '0x',
      payment_info: '{}',
      max_amount: h.max,
      captured: h.captured ?? '0',
      voided: h.voided ?? '0',
      refunded: h.refunded ?? '0',
      reclaimed: '0',
      status: h.status,
      capture_deadline: 1,
      refund_deadline: 2,
      tx: null,
      reclaim_tx: null,
      from_block: 0,
      created_at: T0,
      updated_at: T0,
    })
    // rows 0, 3 and 9 are this agent's pays (b.test, a.test, a.test); row 12 is the other agent's.
    await store.db
      .insertInto('platform_agent_holds')
      .values([
        hold(rows[0]!, 1, { status: 'held', max: '1000' }),
        hold(rows[3]!, 2, { status: 'settled', max: '1000', captured: '400', voided: '600', refunded: '100' }),
        hold(rows[9]!, 3, { status: 'settled', max: '2000', voided: '2000' }),
        hold(rows[12]!, 4, { status: 'held', max: '5000' }),
      ])
      .execute()
    const r = await spendReport(store, agentId, reportQuery.parse({ since: '2026-11-01', until: '2026-11-04' }))
    expect(r.holds).toEqual([
      {
        token: 'USDC',
        count: 3,
        held: '0.004',
        holding: '0.001',
        captured: '0.0004',
        voided: '0.0026',
        refunded: '0.0001',
        reclaimed: '0',
      },
    ])
    expect(
      (
        await spendReport(
          store,
          agentId,
          reportQuery.parse({ since: '2026-11-01', until: '2026-11-04', host: 'a.test' }),
        )
      ).holds,
    ).toEqual([
      {
        token: 'USDC',
        count: 2,
        held: '0.003',
        holding: '0',
        captured: '0.0004',
        voided: '0.0026',
        refunded: '0.0001',
        reclaimed: '0',
      },
    ])
    expect(
      (await spendReport(store, agentId, reportQuery.parse({ since: '2026-11-01', until: '2026-11-04', kind: 'send' })))
        .holds,
    ).toEqual([])
  })

  it('refuses a cursor it did not give out', () => {
    expect(paymentsQuery.safeParse({ cursor: 'abc' }).success).toBe(false)
    expect(paymentsQuery.safeParse({ limit: '201' }).success).toBe(false)
    expect(paymentsQuery.safeParse({ since: 'yesterday' }).success).toBe(false)
  })
})
