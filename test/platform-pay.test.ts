import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/networks/registry.js'
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
/** A second payee: /two offers PUSD to payTo and USDC to otherPayTo. */
const otherPayTo = randomAddress()
/** Paths a payment header was sent to: a refusal before signing leaves no trace here. */
const paymentsSeen: string[] = []
const PUSD_PRICE = 10n ** 16n // 0.01 PUSD (18 decimals)

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name: 'buyer' } })
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const app = express()
  app.use((req, _res, next) => {
    if (req.header('payment-signature') || req.header('x-payment')) paymentsSeen.push(req.path)
    next()
  })
  // A v1-only seller: the same gate with its v2 header taken out, so only the v1 JSON body names the terms.
  app.use('/v1', (_req, res, next) => {
    const set = res.setHeader.bind(res)
    res.setHeader = ((k: string, v: never) =>
      k.toLowerCase() === 'payment-required' ? res : set(k, v)) as typeof res.setHeader
    next()
  })
  const price = (method?: string, asset = 'PUSD', amount = String(PUSD_PRICE)) => ({
    prices: [{ network: 'local-base', asset, amount, payTo, ...(method ? { method } : {}) }],
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /two': {
          prices: [
            price().prices[0]!,
            { network: 'local-base', asset: 'USDC', amount: '10000', payTo: otherPayTo, method: 'eip3009' },
          ],
        },
        'GET /pusd': price(),
        'GET /v1/pusd': price(),
        'GET /usdc': price('eip3009', 'USDC', '10000'),
        'GET /broken': price(),
      },
    }),
  )
  app.get('/pusd', (_req, res) => void res.json({ data: 'pusd report' }))
  app.get('/two', (_req, res) => void res.json({ data: 'two offers' }))
  app.get('/v1/pusd', (_req, res) => void res.json({ data: 'v1 report' }))
  app.get('/usdc', (_req, res) => void res.json({ data: 'usdc report' }))
  app.get('/broken', (_req, res) => void res.status(500).json({ error: 'the handler failed' }))
  app.get('/free', (_req, res) => void res.json({ free: true }))
  app.get('/garbage', (_req, res) => void res.status(402).set('PAYMENT-REQUIRED', 'not base64 json').send('pay me'))
  const lightning = Buffer.from(JSON.stringify({ amount: '1000', currency: 'sat' })).toString('base64url')
  app.get(
    '/mpp',
    (_req, res) =>
      void res
        .status(402)
        .set(
          'WWW-Authenticate',
          `Payment id="x", realm="r", method="lightning", intent="charge", request="${lightning}"`,
        )
        .send(''),
  )
  // A rogue seller: settles an eip3009 payment through the facilitator, then answers 500 without PAYMENT-RESPONSE.
  app.get('/rogue/:terms', async (req, res) => {
    const sig = req.header('payment-signature')
    if (!sig) {
      const terms = await fetch(`${seller.url}/${req.params.terms}`)
      return void res.status(402).set('PAYMENT-REQUIRED', terms.headers.get('payment-required')!).send('{}')
    }
    const payload = JSON.parse(Buffer.from(sig, 'base64').toString('utf8'))
    await fetch(`${d.urls.facilitator}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted }),
    })
    res.status(500).json({ error: 'crashed after settling' })
  })
  seller = await listen(app)
}, 120_000)
const bin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'parx-pay-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const bal = (owner: Address, symbol: string) => {
  const chain = d.services.base
  return chain.client.readContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}
async function buyer(funded: string) {
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: funded } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: funded } })
  const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
  return { a, agentKey, client: createPlatformClient({ url: d.urls.platform, agentKey }) }
}
const pay = (id: string, agentKey: string, body: unknown) =>
  d.raw(`/api/agents/${id}/pay`, {
    method: 'POST',
    headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('pay (x402)', () => {
  it('pays a PUSD (erc2612) and a USDC (eip3009) endpoint, v2 and v1; balances exact; 0 ETH', async () => {
    const { a, client } = await buyer('1')
    const before = await bal(payTo, 'PUSD')
    const r = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd`, maxAmount: '0.01' } })
    if (r.dryRun) throw new Error('not a dry run')
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ data: 'pusd report' })
    expect(r.receipt).toMatchObject({
      protocol: 'x402-v2',
      amount: '0.01',
      token: 'PUSD',
      network: 'local-base',
      payer: a.wallet,
      payTo,
    })
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
    expect(dry).toEqual({
      dryRun: true,
      wouldPay: false,
      approvalRequired: false,
      approveAboveUsd: null,
      refusedBy: {
        rule: 'day',
        scope: 'agent',
        value: '0.005',
        message: expect.stringContaining("above what this agent's day budget of 0.005 USD still allows"),
      },
      offer: { protocol: 'x402-v2', scheme: 'exact', amount: '0.01', token: 'PUSD', network: 'local-base', payTo },
      remaining: { perPayment: null, hour: null, day: '0.005', week: null, month: null },
      price: { protocol: 'x402-v2', amount: '0.01', token: 'PUSD', network: 'local-base', payTo },
      withinLimits: false,
      remainingTodayUsd: '0.005',
    })
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
  })

  it('refuses before signing: over the limit, above maxAmount, a host off the allow-list; nothing moved', async () => {
    const { a, agentKey } = await buyer('1')
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.001' } })
    const over = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect(over.body).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: 'perPayment',
      limitUsd: '0.001',
      amountUsd: '0.01',
    })
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: null, allowedHosts: ['api.example.com'] } })
    const host = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect(host.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'allowedHosts' })
    await user.setLimits({ params: { id: a.id }, body: { allowedHosts: null } })
    const max = await pay(a.id, agentKey, { url: `${seller.url}/pusd`, maxAmount: '0.009' })
    expect([max.status, max.body.code]).toEqual([409, 'PRICE_ABOVE_MAX'])
    // The cap, the price and its token as fields: a client words the refusal from them, not from the message.
    expect(max.body).toMatchObject({
      maxAmount: '0.009',
      amount: '0.01',
      token: 'PUSD',
      error: 'the seller asks 0.01 PUSD, above maxAmount 0.009; nothing was paid',
    })
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })

  it('budgets per window (issue 41 item 1): each agent and user window pays exactly up to its edge and refuses the next pay before signing', async () => {
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      const { a, agentKey } = await buyer('1')
      await user.setLimits({ params: { id: a.id }, body: { [field]: '0.01' } })
      expect((await pay(a.id, agentKey, { url: `${seller.url}/pusd` })).status, w).toBe(200)
      const next = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
      expect([next.status, next.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'agent', limitUsd: '0.01', amountUsd: '0.01', remainingUsd: '0' },
      ])
      expect(await bal(a.wallet, 'PUSD'), w).toBe(10n ** 18n - PUSD_PRICE)
    }
    // Each of the user's windows, across its agents: a second agent of the user is refused once the first filled it exactly.
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      const owner = createPlatformClient({
        url: d.urls.platform,
        userKey: (await op.createUser({ body: { name: `budget-${w}` } })).userKey,
      })
      await owner.setUserLimits({ body: { [field]: '0.01' } })
      const [first, second] = await Promise.all(
        [0, 1].map(async () => {
          const a = await owner.createAgent({ body: { name: 'b', network: 'local-base' } })
          await d.call('/api/local/faucet', {
            body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '1' },
          })
          return { a, agentKey: (await owner.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
        }),
      )
      expect((await pay(first!.a.id, first!.agentKey, { url: `${seller.url}/pusd` })).status, w).toBe(200)
      const refused = await pay(second!.a.id, second!.agentKey, { url: `${seller.url}/pusd` })
      expect([refused.status, refused.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'user', limitUsd: '0.01', remainingUsd: '0' },
      ])
      expect(await bal(second!.a.wallet, 'PUSD'), w).toBe(10n ** 18n)
    }
  }, 120_000)

  it('a seller that fails after payment leaves the agent uncharged; malformed terms and MPP-only are clear errors', async () => {
    const { a, agentKey } = await buyer('1')
    const broken = await pay(a.id, agentKey, { url: `${seller.url}/broken` })
    expect(broken.body).toMatchObject({
      code: 'SELLER_FAILED',
      charged: false,
      transaction: null,
      reservedUntil: expect.any(String),
    })
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
    expect((await d.services.base.client.getTransactionReceipt({ hash: rogue.body.transaction })).status).toBe(
      'success',
    )
    expect(await bal(payTo, 'USDC')).toBe(before + 10_000n)
    expect(await bal(a.wallet, 'USDC')).toBe(990_000n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.01')
    // The same with an erc2612 permit (PUSD): the permit nonce moved, the transfer is found.
    const pusdBefore = await bal(payTo, 'PUSD')
    const permit = await pay(a.id, agentKey, { url: `${seller.url}/rogue/pusd` })
    expect([permit.status, permit.body.code, permit.body.charged]).toEqual([502, 'SELLER_FAILED', true])
    expect((await d.services.base.client.getTransactionReceipt({ hash: permit.body.transaction })).status).toBe(
      'success',
    )
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

describe('pay: payee and network rules (issue 41 item 2)', () => {
  const rows = async (id: string) => (await user.listPayments({ params: { id } })).payments.length

  it('a deny-listed payTo is refused before signing: no payment header reaches the seller, no spend row, balance unchanged', async () => {
    const { a, agentKey } = await buyer('1')
    const seen = paymentsSeen.length
    await user.setAgentPolicy({ params: { id: a.id }, body: { denyPayTo: [payTo.toLowerCase()] } })
    const r = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect([r.status, r.body]).toMatchObject([
      403,
      { code: 'LIMIT_EXCEEDED', limit: 'denyPayTo', rule: 'denyPayTo', scope: 'agent', value: payTo },
    ])
    expect(r.body.error).toContain('nothing was signed')
    // The user's deny-list refuses every agent of the user, even one whose own rules allow the payee.
    await user.setAgentPolicy({ params: { id: a.id }, body: { clear: true, allowPayTo: [payTo] } })
    await user.setUserPolicy({ body: { denyPayTo: [payTo] } })
    const byUser = await pay(a.id, agentKey, { url: `${seller.url}/pusd` })
    expect(byUser.body).toMatchObject({ code: 'LIMIT_EXCEEDED', rule: 'denyPayTo', scope: 'user' })
    await user.setUserPolicy({ body: { clear: true } })
    expect(paymentsSeen.length).toBe(seen)
    expect(await rows(a.id)).toBe(0)
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
  })

  it('an allowed host and payee pay; an offer a rule refuses is passed over for the next one allowed', async () => {
    const { a, client } = await buyer('1')
    await user.setAgentPolicy({
      params: { id: a.id },
      body: {
        allowHosts: ['127.0.0.1'],
        allowPayTo: [payTo],
        allowTokens: ['PUSD', 'USDC'],
        allowNetworks: [networks['local-base']!.caip2],
      },
    })
    // allowHosts is the limits' allowedHosts: one list.
    expect((await user.getLimits({ params: { id: a.id } })).allowedHosts).toEqual(['127.0.0.1'])
    const ok = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd` } })
    expect(ok).toMatchObject({ dryRun: false, status: 200, receipt: { token: 'PUSD', payTo } })
    // /two offers PUSD to payTo first, USDC to otherPayTo second: denying PUSD takes the second.
    await user.setAgentPolicy({ params: { id: a.id }, body: { allowPayTo: null, denyTokens: ['pusd'] } })
    const usdcBefore = await bal(otherPayTo, 'USDC')
    const second = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/two` } })
    expect(second).toMatchObject({ dryRun: false, status: 200, receipt: { token: 'USDC', payTo: otherPayTo } })
    expect(await bal(otherPayTo, 'USDC')).toBe(usdcBefore + 10_000n)
    // Both refused: the first offer's refusal is the answer.
    await user.setAgentPolicy({ params: { id: a.id }, body: { denyPayTo: [otherPayTo] } })
    await expect(client.pay({ params: { id: a.id }, body: { url: `${seller.url}/two` } })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      body: { rule: 'denyTokens', value: 'PUSD' },
    })
  }, 60_000)

  it('a host on a deny-list is not contacted; dry runs answer a verdict either way', async () => {
    const { a, client } = await buyer('1')
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.5', dailyUsd: '2' } })
    const allowed = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd`, dryRun: true } })
    expect(allowed).toMatchObject({
      dryRun: true,
      wouldPay: true,
      refusedBy: null,
      offer: { scheme: 'exact', amount: '0.01', token: 'PUSD', network: 'local-base', payTo },
      remaining: { perPayment: '0.5', day: '2' },
    })
    await user.setUserPolicy({ body: { denyHosts: ['127.0.0.1'] } })
    try {
      const before = paymentsSeen.length
      const refused = await client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd`, dryRun: true } })
      expect(refused).toMatchObject({
        dryRun: true,
        wouldPay: false,
        refusedBy: { rule: 'denyHosts', scope: 'user', value: '127.0.0.1' },
        offer: null,
        remaining: { day: '2' },
      })
      await expect(client.pay({ params: { id: a.id }, body: { url: `${seller.url}/pusd` } })).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
        body: { rule: 'denyHosts' },
      })
      expect(paymentsSeen.length).toBe(before)
    } finally {
      await user.setUserPolicy({ body: { clear: true } })
    }
    expect(await rows(a.id)).toBe(0)
  })

  it('the compiled parx pay --dry-run and the MCP pay tool with dryRun answer the verdict with exit 0', async () => {
    const { a, agentKey } = await buyer('1')
    await user.setAgentPolicy({ params: { id: a.id }, body: { denyPayTo: [payTo] } })
    const env = {
      ...process.env,
      PARX_AGENTS_URL: d.urls.platform,
      PARX_AGENT_KEY: agentKey,
      PARX_AGENT_ID: a.id,
      PARX_CONFIG_DIR: join(tmp, 'conf'),
      PARX_RUNTIME_DIR: join(tmp, 'run'),
      HOME: tmp,
    }
    const run = (args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile(process.execPath, [bin, ...args], { env, timeout: 60_000 }, (e, out, err) =>
          resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, out, err }),
        )
      })
    const refused = await run(['pay', `${seller.url}/pusd`, '--dry-run', '--output', 'json'])
    expect(refused.code, refused.err).toBe(0)
    expect(JSON.parse(refused.out)).toMatchObject({
      wouldPay: false,
      refusedBy: { rule: 'denyPayTo', scope: 'agent', value: payTo },
      offer: { payTo },
    })
    const text = await run(['pay', `${seller.url}/pusd`, '--dry-run'])
    expect([text.code, text.out]).toEqual([0, expect.stringContaining("would be refused by the agent's denyPayTo")])
    await user.setAgentPolicy({ params: { id: a.id }, body: { clear: true } })
    const allowed = await run(['pay', `${seller.url}/pusd`, '--dry-run', '--output', 'json'])
    expect(allowed.code, allowed.err).toBe(0)
    expect(JSON.parse(allowed.out)).toMatchObject({
      wouldPay: true,
      refusedBy: null,
      offer: { scheme: 'exact', token: 'PUSD' },
    })

    await user.setUserPolicy({ body: { denyNetworks: ['local-base'] } })
    const mcp = new Client({ name: 'parx-test', version: '0.0.0' })
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp'],
        env: env as Record<string, string>,
        stderr: 'pipe',
      }),
    )
    try {
      const r = await mcp.callTool({ name: 'pay', arguments: { url: `${seller.url}/pusd`, dryRun: true } })
      expect(r.isError).toBeFalsy()
      expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toMatchObject({
        wouldPay: false,
        refusedBy: { rule: 'denyNetworks', scope: 'user', value: 'local-base' },
      })
    } finally {
      await mcp.close()
      await user.setUserPolicy({ body: { clear: true } })
    }
    expect(await rows(a.id)).toBe(0)
    expect(await bal(a.wallet, 'PUSD')).toBe(10n ** 18n)
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
      const mine = (st.body.payments as Array<{ paymentId: string | null; payer: string }>).find(
        (p) => p.payer.toLowerCase() === a.wallet.toLowerCase(),
      )
      expect(mine?.paymentId).toMatch(/^pay_[0-9a-f]{32}$/)
      ids.push(mine!.paymentId!)
      expect(await d.raw(`/facilitator/status/${mine!.paymentId}`)).toMatchObject({
        status: 200,
        body: { status: 'completed', transaction: r.receipt.transaction },
      })
    }
    // One id per purchase.
    expect(new Set(ids).size).toBe(2)
  })
})
