import express from 'express'
import { erc20Abi, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * pay over HTTP against a real daemon: a seller behind our x402 payment gate settling through our
 * facilitator; the agent (0 ETH) pays with its wallet. Limits, maxAmount, dryRun, malformed terms,
 * MPP-only challenges and a seller that fails after payment (uncharged).
 */
let d: TestDaemon
let user: PlatformClient
let seller: { url: string; close(): Promise<void> }
const payTo = randomAddress()
const PUSD_PRICE = 10n ** 16n // 0.01 PUSD (18 decimals)

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name: 'buyer' } })
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const app = express()
  // A v1-only seller: the same gate with its v2 header taken out, so only the v1 JSON body names the terms.
  app.use('/v1', (_req, res, next) => {
    const set = res.setHeader.bind(res)
    res.setHeader = ((k: string, v: never) => (k.toLowerCase() === 'payment-required' ? res : set(k, v))) as typeof res.setHeader
    next()
  })
  const price = (method?: string, asset = 'PUSD', amount = String(PUSD_PRICE)) => ({ prices: [{ network: 'local-base', asset, amount, payTo, ...(method ? { method } : {}) }] })
  app.use(paymentGate({
    facilitator: { url: d.urls.facilitator },
    routes: { 'GET /pusd': price(), 'GET /v1/pusd': price(), 'GET /usdc': price('eip3009', 'USDC', '10000'), 'GET /broken': price() },
  }))
  app.get('/pusd', (_req, res) => void res.json({ data: 'pusd report' }))
  app.get('/v1/pusd', (_req, res) => void res.json({ data: 'v1 report' }))
  app.get('/usdc', (_req, res) => void res.json({ data: 'usdc report' }))
  app.get('/broken', (_req, res) => void res.status(500).json({ error: 'the handler failed' }))
  app.get('/free', (_req, res) => void res.json({ free: true }))
  app.get('/garbage', (_req, res) => void res.status(402).set('PAYMENT-REQUIRED', 'not base64 json').send('pay me'))
  const lightning = Buffer.from(JSON.stringify({ amount: '1000', currency: 'sat' })).toString('base64url')
  app.get('/mpp', (_req, res) => void res.status(402).set('WWW-Authenticate', `Payment id="x", realm="r", method="lightning", intent="charge", request="${lightning}"`).send(''))
  // A rogue seller: settles an eip3009 payment through the facilitator, then answers 500 without PAYMENT-RESPONSE.
  app.get('/rogue/:terms', async (req, res) => {
    const sig = req.header('payment-signature')
    if (!sig) {
      const terms = await fetch(`${seller.url}/${req.params.terms}`)
      return void res.status(402).set('PAYMENT-REQUIRED', terms.headers.get('payment-required')!).send('{}')
    }
    const payload = JSON.parse(Buffer.from(sig, 'base64').toString('utf8'))
    await fetch(`${d.urls.facilitator}/settle`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted }),
    })
    res.status(500).json({ error: 'crashed after settling' })
  })
  seller = await listen(app)
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const bal = (owner: Address, symbol: string) => {
  const chain = d.services.base
  return chain.client.readContract({ address: chain.tokens[symbol]!.address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
}
async function buyer(funded: string) {
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: funded } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: funded } })
  const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
  return { a, agentKey, client: createPlatformClient({ url: d.urls.platform, agentKey }) }
}
const pay = (id: string, agentKey: string, body: unknown) =>
  d.raw(`/api/agents/${id}/pay`, { method: 'POST', headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('pay (x402)', () => {
  it('pays a PUSD (erc2612) and a USDC (eip3009) endpoint, v2 and v1; balances exact; 0 ETH', async () => {
    const { a, client } = await buyer('1')
    const before = await bal(payTo, 'PUSD')
    const r = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd`, maxAmount: '0.01' } })
    if (r.dryRun) throw new Error('not a dry run')
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ data: 'pusd report' })
    expect(r.receipt).toMatchObject({ protocol: 'x402-v2', amount: '0.01', token: 'PUSD', network: 'local-base', payer: a.wallet, payTo })
    expect(await bal(payTo, 'PUSD')).toBe(before + PUSD_PRICE)
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n - PUSD_PRICE)
    const u = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/usdc` } })
    if (u.dryRun) throw new Error('not a dry run')
    expect(u.receipt).toMatchObject({ protocol: 'x402-v2', amount: '0.01', token: 'USDC' })
    expect(await bal(a.wallet, 'USDC')).toBe(990_000n)
    const v1 = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/v1/pusd` } })
    if (v1.dryRun) throw new Error('not a dry run')
    expect(v1.receipt).toMatchObject({ protocol: 'x402-v1', amount: '0.01', token: 'PUSD' })
    expect(JSON.parse(v1.body)).toEqual({ data: 'v1 report' })
    expect(await bal(payTo, 'PUSD')).toBe(before + 2n * PUSD_PRICE)
    expect(await d.services.base.client.getBalance({ address: a.wallet })).toBe(0n)
    expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.03')
  }, 60_000)

  it('a free URL passes through with no receipt; dryRun reports the price and pays nothing', async () => {
    const { a, client } = await buyer('1')
    const free = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/free` } })
    expect(free).toMatchObject({ dryRun: false, status: 200, receipt: null })
    await user.setLimits({ params: { id: a.id }, body: { dailyUsd: '0.005' } })
    const dry = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd`, dryRun: true } })
    expect(dry).toEqual({ dryRun: true, price: { protocol: 'x402-v2', amount: '0.01', token: 'PUSD', network: 'local-base', payTo }, withinLimits: false, remainingTodayUsd: '0.005' })
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
  })

  it('refuses before signing: over the limit, above maxAmount, a host off the allow-list; nothing moved', async () => {
    const { a, agentKey } = await buyer('1')
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.001' } })
    const over = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect(over.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'perPayment', limitUsd: '0.001', amountUsd: '0.01' })
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: null, allowedHosts: ['api.example.com'] } })
    const host = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect(host.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'allowedHosts' })
    await user.setLimits({ params: { id: a.id }, body: { allowedHosts: null } })
    const max = await pay(a.id, agentKey, { url: `${seller.url}/pusd`, maxAmount: '0.009' })
    expect([max.status, max.body.code]).toEqual([409, 'PRICE_ABOVE_MAX'])
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })

  it('budgets per window (issue 41 item 1): each window pays exactly up to its edge and refuses the next pay before signing', async () => {
    for (const [w, field] of [['hour', 'hourlyUsd'], ['day', 'dailyUsd'], ['week', 'weeklyUsd'], ['month', 'monthlyUsd']] as const) {
      const { a, agentKey } = await buyer('1')
      await user.setLimits({ params: { id: a.id }, body: { [field]: '0.01' } })
      expect((await pay(a.id, agentKey, { url: `${seller.url}/pusd` })).status, w).toBe(200)
      const next = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
      expect([next.status, next.body], w).toMatchObject([403, { code: 'LIMIT_EXCEEDED', limit: w, scope: 'agent', limitUsd: '0.01', amountUsd: '0.01', remainingUsd: '0' }])
      expect(await bal(a.wallet, 'PUSD'), w).toBe(10n ** 18n - PUSD_PRICE)
    }
    // The user's budget, across its agents: a second agent of the user is refused once the first spent it.
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const owner = createPlatformClient({ url: d.urls.platform, userKey: (await op.createUser({ body: { name: 'budget' } })).userKey })
    await owner.setUserLimits({ body: { weeklyUsd: '0.01' } })
    const [first, second] = await Promise.all([0, 1].map(async () => {
      const a = await owner.createAgent({ body: { name: 'b', network: 'local-base' } })
      await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '1' } })
      return { a, agentKey: (await owner.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
    }))
    expect((await pay(first!.a.id, first!.agentKey, { url: `${seller.url}/pusd` })).status).toBe(200)
    const refused = await pay(second!.a.id, second!.agentKey, { url: `${seller.url}/pusd` })
    expect([refused.status, refused.body]).toMatchObject([403, { code: 'LIMIT_EXCEEDED', limit: 'week', scope: 'user', remainingUsd: '0' }])
    expect(await bal(second!.a.wallet, 'PUSD')).toBe(10n ** 18n)
  }, 120_000)

  it('a seller that fails after payment leaves the agent uncharged; malformed terms and MPP-only are clear errors', async () => {
    const { a, agentKey } = await buyer('1')
    const broken = await pay(a.id, agentKey, { url: `${seller.url}/broken` })
    expect(broken.body).toMatchObject({ code: 'SELLER_FAILED', charged: false, transaction: null, reservedUntil: expect.any(String) })
    const garbage = await pay(a.id, agentKey, { url: `${seller.url}/garbage` })
    expect([garbage.status, garbage.body.code]).toEqual([502, 'SELLER_TERMS_MALFORMED'])
    const mpp = await pay(a.id, agentKey, { url: `${seller.url}/mpp` })
    expect([mpp.status, mpp.body.code]).toEqual([422, 'SELLER_METHOD_UNSUPPORTED'])
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
    // The unsettled permit of /broken stays valid until its deadline: its price stays reserved until then.
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.01')
  })

  it('a seller that settles (eip3009, then erc2612) and then fails: charged true with the transaction, read from the chain', async () => {
    const { a, agentKey } = await buyer('1')
    const before = await bal(payTo, 'USDC')
    const rogue = await pay(a.id, agentKey, { url: `${seller.url}/rogue/usdc` })
    expect([rogue.status, rogue.body.code, rogue.body.charged]).toEqual([502, 'SELLER_FAILED', true])
    expect(rogue.body.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await d.services.base.client.getTransactionReceipt({ hash: rogue.body.transaction })).status).toBe('success')
    expect(await bal(payTo, 'USDC')).toBe(before + 10_000n)
    expect(await bal(a.wallet, 'USDC')).toBe(990_000n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.01')
    // The same with an erc2612 permit (PUSD): the permit nonce moved, the transfer is found.
    const pusdBefore = await bal(payTo, 'PUSD')
    const permit = await pay(a.id, agentKey, { url: `${seller.url}/rogue/pusd` })
    expect([permit.status, permit.body.code, permit.body.charged]).toEqual([502, 'SELLER_FAILED', true])
    expect((await d.services.base.client.getTransactionReceipt({ hash: permit.body.transaction })).status).toBe('success')
    expect(await bal(payTo, 'PUSD')).toBe(pusdBefore + PUSD_PRICE)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.02')
  })

  it('pay end-to-end p50/p99 over 20 payments (figure printed, not asserted)', async () => {
    const { a, client } = await buyer('1')
    const ms: number[] = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd` } })
      ms.push(performance.now() - t0)
    }
    ms.sort((x, y) => x - y)
    console.log('platform pay x402 ms', { p50: ms[10]!.toFixed(1), p99: ms[19]!.toFixed(1) })
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n - 20n * PUSD_PRICE)
  }, 120_000)
})

describe('pay (x402 payment-identifier)', () => {
  it('sends a payment id with each v2 purchase: the facilitator files the settlement under it', async () => {
    const { a, client } = await buyer('1')
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const r = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd` } })
      if (r.dryRun || !r.receipt) throw new Error('not paid')
      const st = await d.raw(`/facilitator/status/tx/${r.receipt.transaction}`)
      const mine = (st.body.payments as Array<{ paymentId: string | null; payer: string }>).find((p) => p.payer.toLowerCase() === a.wallet.toLowerCase())
      expect(mine?.paymentId).toMatch(/^pay_[0-9a-f]{32}$/)
      ids.push(mine!.paymentId!)
      expect(await d.raw(`/facilitator/status/${mine!.paymentId}`)).toMatchObject({ status: 200, body: { status: 'completed', transaction: r.receipt.transaction } })
    }
    // One id per purchase.
    expect(new Set(ids).size).toBe(2)
  })
})
