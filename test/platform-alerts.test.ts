import { createHmac, timingSafeEqual } from 'node:crypto'
import express from 'express'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FiredAlert } from '../src/sdk/platform/alerts.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 41 item 5 against a real daemon (SQLite and PostgreSQL: storeSensitive): rules added with
 * the compiled `parx alerts add`, agents paying a real x402 seller, and a real webhook receiver on
 * 127.0.0.1 behind the user's endpoint. Each kind fires exactly once per crossing: a budget at 80%
 * once when crossed and again only after the window fell below, a payment above X once per such
 * payment, a new payee host once, 3 refusals in 10 minutes once, a spend rate over 3 times the
 * 7-day average once. Each alert reaches the receiver once, signed with the endpoint's secret as
 * docs/platform-api.md says, and is listed by `parx alerts history`. No test waits on time: the
 * ledger's rows are moved into the past in the store, as the clock would move them.
 */
let d: TestDaemon
let user: PlatformClient
let userKey: string
let seller: { url: string; close(): Promise<void> }
let receiver: { url: string; close(): Promise<void> }
let secret: string
const payTo = randomAddress()
const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  const app = express()
  const price = (cents: number) => ({
    prices: [{ network: 'local-base', asset: 'PUSD', amount: String(BigInt(cents) * 10n ** 16n), payTo }],
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: { 'GET /report': price(1), 'GET /big': price(2) },
    }),
  )
  app.get('/report', (_req, res) => void res.json({ data: 'the report' }))
  app.get('/big', (_req, res) => void res.json({ data: 'the big report' }))
  seller = await listen(app)
  const hooks = express()
  hooks.post(
    '/hook',
    express.text({ type: '*/*' }),
    (req, res) => void (got.push({ headers: req.headers, body: req.body as string }), res.status(200).end()),
  )
  receiver = await listen(hooks)
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  userKey = (await op.createUser({ body: { name: 'owner' } })).userKey
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'seller-side', network: 'local-base' } })
  const e = await user.createEndpoint({
    body: {
      upstreamUrl: `${seller.url}/report`,
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: a.id,
      webhookUrl: `${receiver.url}/hook`,
    },
  })
  secret = e.webhookSecret!
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await receiver?.close()
  await d?.close()
})

const asUser = (args: string[]) =>
  runParx(d.urls.api, ['--output', 'json', ...args], { PARX_USER_KEY: userKey, PARX_AGENTS_URL: d.urls.platform })
const json = (r: { out: string; err: string }) => JSON.parse(r.out || r.err)

/** A fresh agent with 1 PUSD and its own key: each test watches its own agent, so rules do not see each other's pays. */
async function newAgent(limits: Record<string, string> = {}) {
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  const agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  await d.call('/api/local/faucet', {
    body: { network: 'local-base', to: a.wallet as Address, token: 'PUSD', amount: '1' },
  })
  if (Object.keys(limits).length) await user.setLimits({ params: { id: a.id }, body: limits })
  const client = createPlatformClient({ url: d.urls.platform, agentKey })
  return {
    id: a.id,
    /** Pays the seller's /report (0.01 PUSD) or /big (0.02 PUSD); the answer's status, or the error's code. */
    pay: async (path = '/report') =>
      client.pay({ params: { id: a.id }, body: { url: `${seller.url}${path}` } }).then(
        () => 'paid',
        (e: { code?: string }) => e.code,
      ),
    /** Moves the agent's spends `ms` into the past, as the clock would. */
    age: (ms: number) =>
      d.services.store.db
        .updateTable('platform_spends')
        .set((eb) => ({ created_at: eb('created_at', '-', ms) }))
        .where('agent_id', '=', a.id)
        .execute(),
  }
}

async function addRule(args: string[]): Promise<string> {
  const r = await asUser(['alerts', 'add', ...args])
  expect(r.code, r.err).toBe(0)
  return json(r).id as string
}

/** The rule's alerts in `parx alerts history` (the compiled CLI), oldest first. */
async function history(ruleId: string): Promise<FiredAlert[]> {
  const r = await asUser(['alerts', 'history'])
  expect(r.code, r.err).toBe(0)
  return (json(r).alerts as FiredAlert[]).filter((a) => a.ruleId === ruleId).reverse()
}

/**
 * The deliveries of the rule's alerts, once each has arrived: verified with the endpoint's secret
 * (the recipe of docs/platform-api.md "Settlement webhooks"), one per alert and no more.
 */
async function delivered(alerts: FiredAlert[]): Promise<{ type: string; data: FiredAlert }[]> {
  const mine = () => got.filter((g) => alerts.some((a) => JSON.parse(g.body).data?.id === a.id))
  for (let i = 0; i < 300 && new Set(mine().map((g) => JSON.parse(g.body).data.id)).size < alerts.length; i++)
    await new Promise((r) => setTimeout(r, 100))
  const events = mine()
  for (const g of events) {
    const [id, ts] = [String(g.headers['webhook-id']), String(g.headers['webhook-timestamp'])]
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${id}.${ts}.${g.body}`)
      .digest()
    const sig = Buffer.from(String(g.headers['webhook-signature']).split(',')[1] ?? '', 'base64')
    expect(sig.length === expected.length && timingSafeEqual(sig, expected)).toBe(true)
  }
  expect(events).toHaveLength(alerts.length)
  return events.map((g) => JSON.parse(g.body))
}

const DAY = 24 * 3_600_000

describe('alerts, each kind once per crossing, through a real webhook receiver', () => {
  it('budget at 80% of the month: once when crossed, not on the next pay, again after the window fell below', async () => {
    const a = await newAgent({ monthlyUsd: '0.05' })
    const ruleId = await addRule(['--budget', '80', '--window', 'month', '--agent', a.id])
    for (let i = 0; i < 3; i++) expect(await a.pay()).toBe('paid')
    expect(await history(ruleId)).toHaveLength(0)
    expect(await a.pay()).toBe('paid') // 0.04 of 0.05: 80% crossed
    expect(await a.pay()).toBe('paid') // 100%: still above
    const first = await history(ruleId)
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({
      kind: 'budget',
      agentId: a.id,
      figures: { window: 'month', percent: 80, limitUsd: '0.05', spentUsd: '0.04' },
    })
    const [event] = await delivered(first)
    expect(event).toMatchObject({ type: 'alert.budget', data: first[0] })

    await a.age(31 * DAY) // the month rolled: the window is below again
    for (let i = 0; i < 3; i++) expect(await a.pay()).toBe('paid')
    expect(await history(ruleId)).toHaveLength(1)
    expect(await a.pay()).toBe('paid')
    const again = await history(ruleId)
    expect(again).toHaveLength(2)
    await delivered(again)
  }, 180_000)

  it('payment_above: once for each payment above the threshold, never for one below', async () => {
    const a = await newAgent()
    const ruleId = await addRule(['--payment-above', '0.015', '--agent', a.id])
    expect(await a.pay('/report')).toBe('paid')
    expect(await a.pay('/big')).toBe('paid')
    expect(await a.pay('/report')).toBe('paid')
    expect(await a.pay('/big')).toBe('paid')
    const alerts = await history(ruleId)
    expect(alerts).toHaveLength(2)
    expect(alerts.map((x) => x.figures.amountUsd)).toEqual(['0.02', '0.02'])
    const events = await delivered(alerts)
    expect(events.every((e) => e.type === 'alert.payment_above')).toBe(true)
  }, 180_000)

  it('new_payee: the first pay to a host fires, the next ones to it do not', async () => {
    const a = await newAgent()
    const ruleId = await addRule(['--new-payee', '--agent', a.id])
    expect(await a.pay()).toBe('paid')
    expect(await a.pay('/big')).toBe('paid')
    expect(await a.pay()).toBe('paid')
    const alerts = await history(ruleId)
    expect(alerts).toHaveLength(1)
    expect(alerts[0]!.figures).toMatchObject({ host: '127.0.0.1', of: 'agent' })
    expect((await delivered(alerts))[0]!.type).toBe('alert.new_payee')
  }, 180_000)

  it('refusals: the third refusal within 10 minutes fires, the fourth does not', async () => {
    const a = await newAgent()
    const ruleId = await addRule(['--refusals', '3', '--within', '10m', '--agent', a.id])
    const frozen = await asUser(['agent', 'freeze', a.id])
    expect(frozen.code, frozen.err).toBe(0)
    for (let i = 0; i < 2; i++) expect(await a.pay()).toBe('AGENT_FROZEN')
    expect(await history(ruleId)).toHaveLength(0)
    expect(await a.pay()).toBe('AGENT_FROZEN')
    expect(await a.pay()).toBe('AGENT_FROZEN')
    const alerts = await history(ruleId)
    expect(alerts).toHaveLength(1)
    expect(alerts[0]!.figures).toMatchObject({ count: 3, withinMinutes: 10, lastCode: 'AGENT_FROZEN' })
    expect((await delivered(alerts))[0]!.type).toBe('alert.refusals')
  }, 180_000)

  it('spend_rate: the last day above 3 times the 7-day daily average fires once', async () => {
    const a = await newAgent()
    expect(await a.pay('/big')).toBe('paid')
    await a.age(2 * DAY) // 0.02 in the week before the last day: 0.002857 a day
    const ruleId = await addRule(['--spend-rate', '3', '--period', 'day', '--agent', a.id])
    expect(await a.pay()).toBe('paid') // 0.01 > 3 x 0.002857
    expect(await a.pay()).toBe('paid')
    const alerts = await history(ruleId)
    expect(alerts).toHaveLength(1)
    expect(alerts[0]!.figures).toMatchObject({ period: 'day', factor: '3', spentUsd: '0.01', averageUsd: '0.002857' })
    expect((await delivered(alerts))[0]!.type).toBe('alert.spend_rate')
  }, 180_000)
})

describe('parx alerts: rules as data', () => {
  it('lists, refuses bad flags as usage, and removes a rule; its alerts stay in the history', async () => {
    const a = await newAgent()
    const ruleId = await addRule(['--payment-above', '0.001', '--agent', a.id])
    const list = await asUser(['alerts'])
    expect(list.code, list.err).toBe(0)
    expect(json(list).rules).toContainEqual({
      id: ruleId,
      kind: 'payment_above',
      usd: '0.001',
      agentId: a.id,
      createdAt: expect.any(String),
    })
    expect((await asUser(['alerts', 'add', '--budget', '80'])).code).toBe(2)
    expect((await asUser(['alerts', 'add', '--budget', '80', '--window', 'month', '--new-payee'])).code).toBe(2)
    // The daemon refuses what the contract refuses, with a 4xx and a code.
    const bad = await fetch(`${d.urls.platform}/api/alerts`, {
      method: 'POST',
      headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'budget', percent: 180, window: 'month' }),
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'BAD_REQUEST' })
    expect(await a.pay()).toBe('paid')
    expect(await history(ruleId)).toHaveLength(1)
    const removed = await asUser(['alerts', 'remove', ruleId])
    expect(removed.code, removed.err).toBe(0)
    expect(json(await asUser(['alerts'])).rules.map((r: { id: string }) => r.id)).not.toContain(ruleId)
    expect(await a.pay()).toBe('paid')
    expect(await history(ruleId)).toHaveLength(1)
    expect((await asUser(['alerts', 'remove', ruleId])).code).not.toBe(0)
  }, 180_000)
})
