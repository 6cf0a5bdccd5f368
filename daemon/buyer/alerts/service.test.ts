import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BaseError } from '../../../src/errors/index.js'
import type { AlertRuleSettings } from '../../../src/sdk/platform/alerts.js'
import { testStoreUrl } from '../../../test/helpers/store.js'
import type { AgentRow } from '../../platform/store.js'
import type { EndpointRow, EndpointStore } from '../../seller/endpoints.js'
import { openStore, type Store } from '../../store/store.js'
import { WINDOW_MS } from '../budgets.js'
import { spendsLedger } from '../spends.js'
import { type Alerts, alertsService } from './service.js'

/**
 * Alert rules fire once per crossing, in the store (SQLite and PostgreSQL: storeSensitive): a
 * budget at 80% fires on the spend that crosses it, not on the spends after, and again only once
 * the window fell below; two replicas evaluating one spend store one alert and queue one webhook
 * (the unique dedupe key); each kind on its own figures. Time is never waited for: aged ledger and
 * refusal rows are moved back in the store.
 */
let store: Store
let url: string | undefined
let alerts: Alerts
let agent: AgentRow
const userId = randomUUID()
const log = pino({ level: 'silent' })
const hook = { id: randomUUID(), webhook_url: 'https://hooks.example/alerts' } as EndpointRow
const endpoints = { list: async () => [hook] } as unknown as EndpointStore
const service = (s: Store) => alertsService({ store: s, endpoints, delivery: { poke: async () => {} }, log })

beforeEach(async () => {
  url = await testStoreUrl()
  store = await openStore({ file: ':memory:', url })
  alerts = service(store)
  await store.db
    .insertInto('platform_users')
    .values({ id: userId, wallet: null, name: 'u', created_at: Date.now() })
    .execute()
  agent = await addAgent()
  await store.db.updateTable('platform_agents').set({ monthly_usd: '10' }).where('id', '=', agent.id).execute()
})
afterEach(async () => {
  await store?.close()
})

async function addAgent(): Promise<AgentRow> {
  const id = randomUUID()
  await store.db
    .insertInto('platform_agents')
    .values({
      id,
      user_id: userId,
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
  return await store.db.selectFrom('platform_agents').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** One pay of `usd` to `host` through the real ledger, watched as the platform watches it. */
const pay = (usd: number, host = 'seller.test', a: AgentRow = agent, s = store, al = alerts) =>
  al.watch(a, async () => {
    const ledger = spendsLedger(s)
    const row = await ledger.reserve({
      agentId: a.id,
      kind: 'pay',
      amountMicros: BigInt(Math.round(usd * 1e6)),
      token: 'USDC',
      amount: String(usd),
      host,
    })
    await ledger.confirm(row.id, { tx: '0x01' })
  })
const refused = (code: 'LIMIT_EXCEEDED' | 'AGENT_FROZEN' | 'SELLER_FAILED', a: AgentRow = agent) =>
  alerts
    .watch(a, async () => {
      throw new BaseError(code, 'refused')
    })
    .catch(() => undefined)
const rule = (s: AlertRuleSettings) => alerts.add(userId, s)
const fired = async (kind?: string) =>
  (await alerts.store.history(userId, { limit: 100 })).filter((a) => !kind || a.kind === kind)
const deliveries = () => store.db.selectFrom('platform_webhook_deliveries').selectAll().execute()
/** Moves every ledger row of the agent `ms` into the past, as the clock would. */
const age = (ms: number) =>
  store.db
    .updateTable('platform_spends')
    .set((eb) => ({ created_at: eb('created_at', '-', ms) }))
    .execute()

describe('budget', () => {
  it('fires once when 80% of the month is crossed, not on later spends, and again after the window fell below', async () => {
    const r = await rule({ kind: 'budget', percent: 80, window: 'month', agentId: agent.id })
    await pay(5)
    expect(await fired()).toHaveLength(0)
    await pay(3.5) // 85%: crossed
    await pay(1) // 95%: still above
    const [a] = await fired()
    expect(await fired()).toHaveLength(1)
    expect(a).toMatchObject({ rule_id: r.id, kind: 'budget', agent_id: agent.id })
    expect(JSON.parse(a!.figures)).toMatchObject({
      window: 'month',
      of: 'agent',
      percent: 80,
      limitUsd: '10',
      spentUsd: '8.5',
    })
    const [d] = await deliveries()
    expect(d).toMatchObject({ endpoint_id: hook.id, type: 'alert.budget' })
    expect(JSON.parse(d!.body)).toMatchObject({
      type: 'alert.budget',
      data: { id: a!.id, ruleId: r.id, kind: 'budget', agentId: agent.id },
    })

    await age(WINDOW_MS.month + 1) // every spend left the rolling month: below again
    await pay(7)
    expect(await fired()).toHaveLength(1)
    await pay(2) // 90% again: a second crossing
    expect(await fired()).toHaveLength(2)
    expect(await deliveries()).toHaveLength(2)
  })

  it("a user's budget across its agents, crossed by whichever agent", async () => {
    await store.db.updateTable('platform_users').set({ weekly_usd: '4' }).where('id', '=', userId).execute()
    await rule({ kind: 'budget', percent: 50, window: 'week' })
    const other = await addAgent()
    await pay(1.5)
    await pay(1, 'seller.test', other) // 2.5 of 4: crossed 50%
    await pay(1)
    const all = await fired()
    expect(all).toHaveLength(1)
    expect(all[0]!.agent_id).toBeNull()
    expect(JSON.parse(all[0]!.figures)).toMatchObject({ of: 'user', byAgentId: other.id, spentUsd: '2.5' })
  })

  it('two replicas evaluating the same spend fire it once (the unique key in the store, not memory)', async () => {
    await rule({ kind: 'budget', percent: 80, window: 'month', agentId: agent.id })
    // On PostgreSQL a second pool on the same database, like a second api replica; on SQLite the one store.
    const second = url ? await openStore({ file: ':memory:', url }) : store
    const replica = service(second)
    await pay(7.9)
    let done!: () => void
    const spent = new Promise<void>((r) => (done = r))
    // Both evaluations start before the spend exists, so both read it and find the crossing.
    await Promise.all([
      alerts.watch(agent, async () => {
        await pay(0.5, 'seller.test', agent, store, service(store))
        done()
      }),
      replica.watch(agent, () => spent),
    ])
    expect(await fired()).toHaveLength(1)
    expect(await deliveries()).toHaveLength(1)
    if (second !== store) await second.close()
  })
})

describe('payment above, new payee, spend rate', () => {
  it('payment_above fires for each payment above the threshold, once each', async () => {
    await rule({ kind: 'payment_above', usd: '2' })
    await pay(2)
    await pay(2.5)
    await pay(3)
    const all = await fired('payment_above')
    expect(all.map((a) => JSON.parse(a.figures).amountUsd).sort()).toEqual(['2.5', '3'])
  })

  it('new_payee fires on the first pay to a host, once per host', async () => {
    await rule({ kind: 'new_payee' })
    await pay(0.1, 'a.example')
    await pay(0.1, 'a.example')
    await pay(0.1, 'b.example')
    const all = await fired('new_payee')
    expect(all.map((a) => JSON.parse(a.figures).host).sort()).toEqual(['a.example', 'b.example'])
  })

  it('spend_rate fires when the last day goes above 3 times the 7-day daily average, once', async () => {
    await store.db.updateTable('platform_agents').set({ monthly_usd: null }).where('id', '=', agent.id).execute()
    await pay(7) // the baseline: 7 USD in the week before the last day, 1 USD a day
    await age(2 * WINDOW_MS.day)
    await rule({ kind: 'spend_rate', factor: '3', period: 'day' })
    await pay(2)
    expect(await fired('spend_rate')).toHaveLength(0)
    await pay(1.5) // 3.5 > 3 x 1
    await pay(1)
    const all = await fired('spend_rate')
    expect(all).toHaveLength(1)
    expect(JSON.parse(all[0]!.figures)).toMatchObject({ period: 'day', factor: '3', spentUsd: '3.5', averageUsd: '1' })
  })

  it('refuses a user-wide rule narrowed to one agent (BAD_REQUEST), and more than 50 rules (QUOTA_EXCEEDED)', async () => {
    await expect(
      rule({ kind: 'budget', percent: 80, window: 'month', of: 'user', agentId: agent.id }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' })
    await expect(rule({ kind: 'new_payee', of: 'user', agentId: agent.id })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    })
    for (let i = 0; i < 50; i++) await rule({ kind: 'payment_above', usd: String(1000 + i) })
    await expect(rule({ kind: 'payment_above', usd: '1' })).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' })
  })

  it('a rule scoped to another agent does not watch this one', async () => {
    const other = await addAgent()
    await rule({ kind: 'payment_above', usd: '1', agentId: other.id })
    await pay(5)
    expect(await fired()).toHaveLength(0)
    await pay(5, 'seller.test', other)
    expect(await fired()).toHaveLength(1)
  })
})

describe('refusals', () => {
  it('3 refusals within 10 minutes fire once; again after they left the window; other errors do not count', async () => {
    await rule({ kind: 'refusals', count: 3, withinMinutes: 10 })
    await refused('LIMIT_EXCEEDED')
    await refused('SELLER_FAILED')
    await refused('AGENT_FROZEN')
    expect(await fired()).toHaveLength(0)
    await refused('LIMIT_EXCEEDED') // the third
    await refused('LIMIT_EXCEEDED')
    expect(await fired('refusals')).toHaveLength(1)
    expect(JSON.parse((await fired())[0]!.figures)).toMatchObject({
      count: 3,
      withinMinutes: 10,
      lastCode: 'LIMIT_EXCEEDED',
    })
    await store.db
      .updateTable('platform_alert_refusals')
      .set((eb) => ({ created_at: eb('created_at', '-', 11 * 60_000) }))
      .execute()
    for (let i = 0; i < 3; i++) await refused('AGENT_FROZEN')
    expect(await fired('refusals')).toHaveLength(2)
  })

  it('the refused error reaches the caller unchanged', async () => {
    await rule({ kind: 'refusals', count: 1, withinMinutes: 10 })
    await expect(
      alerts.watch(agent, async () => {
        throw new BaseError('LIMIT_EXCEEDED', 'no')
      }),
    ).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' })
    expect(await fired()).toHaveLength(1)
  })
})
