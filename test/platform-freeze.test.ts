import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { dashboardClient } from './helpers/dashboard.js'
import { type OfficialSeller, officialSeller } from './helpers/official-seller.js'
import { localBase, randomAddress, sellerFacilitator } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 41 item 4 against a real daemon: `parx agent freeze` (the CLI, in-process, over HTTP) stops
 * an agent's pay (x402 exact), channel deposit (x402 batch-settlement, official seller), send and
 * swap with AGENT_FROZEN (423) before anything is signed: no spend row, no token moved, the
 * sellers never see a payment. `parx agent unfreeze` restores them. With
 * platform.unfreezeRequiresDashboard a user key cannot unfreeze; a dashboard session can.
 */
let d: TestDaemon
let user: PlatformClient
let userKey: string
let agentId: string
let agentKey: string
let wallet: Address
let seller: { url: string; close(): Promise<void> }
let channelSeller: OfficialSeller
const payTo = randomAddress()
const to = randomAddress()
const paymentsSeen: string[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  channelSeller = await officialSeller({
    facilitator: sellerFacilitator(d, payTo),
    network: b.caip2 as `${string}:${string}`,
    payTo,
    token: b.token('USDC'),
    routes: { '/report': { amount: '1000' } },
  })
  const app = express()
  app.use((req, _res, next) => {
    if (req.header('payment-signature') || req.header('x-payment')) paymentsSeen.push(req.path)
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /pusd': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo }] },
      },
    }),
  )
  app.get('/pusd', (_req, res) => void res.json({ data: 'pusd report' }))
  seller = await listen(app)

  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  userKey = (await op.createUser({ body: { name: 'freezer' } })).userKey
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  agentId = a.id
  wallet = a.wallet as Address
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  for (const token of ['USDC', 'PUSD'])
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: wallet, token, amount: '5' } })
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await channelSeller?.close()
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
const asAgent = (path: string, body: unknown) =>
  d.raw(`/api/agents/${agentId}/${path}`, {
    method: 'POST',
    headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
const spends = {
  pay: () => asAgent('pay', { url: `${seller.url}/pusd` }),
  deposit: () => asAgent('pay', { url: `${channelSeller.url}/report` }),
  send: () => asAgent('send', { to, amount: '0.5', token: 'PUSD' }),
  swap: () => asAgent('swap', { from: 'USDC', to: 'PUSD', amount: '0.5' }),
}
const cli = (args: string[]) =>
  runParx(d.urls.api, ['--output', 'json', ...args], { PARX_USER_KEY: userKey, PARX_AGENTS_URL: d.urls.platform })
const rows = async () => (await user.listPayments({ params: { id: agentId } })).payments.length

describe('freeze', () => {
  it('a frozen agent pays, deposits, sends and swaps nothing (AGENT_FROZEN, nothing signed); unfreeze restores it', async () => {
    const frozen = await cli(['agent', 'freeze', agentId])
    expect(frozen.code, frozen.err).toBe(0)
    const [view] = JSON.parse(frozen.out).agents
    expect(view).toMatchObject({ id: agentId, frozen: true, frozenAt: expect.any(String) })
    // The agent itself sees it, on every route that shows the agent.
    expect(await createPlatformClient({ url: d.urls.platform, agentKey }).whoamiAgent({})).toMatchObject({
      frozen: true,
      frozenAt: view.frozenAt,
    })

    const before = {
      usdc: await bal(wallet, 'USDC'),
      pusd: await bal(wallet, 'PUSD'),
      seller: await bal(payTo, 'PUSD'),
      to: await bal(to, 'PUSD'),
    }
    for (const [kind, spend] of Object.entries(spends)) {
      const r = await spend()
      expect(r.status, `${kind}: ${JSON.stringify(r.body)}`).toBe(423)
      expect(r.body, kind).toMatchObject({ code: 'AGENT_FROZEN', frozenAt: view.frozenAt })
    }
    expect(await rows()).toBe(0)
    expect(paymentsSeen).toEqual([])
    expect((await user.listChannels({ params: { id: agentId } })).channels).toEqual([])
    expect({
      usdc: await bal(wallet, 'USDC'),
      pusd: await bal(wallet, 'PUSD'),
      seller: await bal(payTo, 'PUSD'),
      to: await bal(to, 'PUSD'),
    }).toEqual(before)
    // The CLI's agent commands exit 9 on it.
    const agentCli = await runParx(
      d.urls.api,
      ['--output', 'json', 'send', '--to', to, '--amount', '0.1', '--token', 'PUSD'],
      { PARX_AGENT_KEY: agentKey, PARX_AGENT_ID: agentId, PARX_AGENTS_URL: d.urls.platform },
    )
    expect(agentCli.code).toBe(9)
    expect(`${agentCli.out}${agentCli.err}`).toMatch(/AGENT_FROZEN/)

    // An agent key can neither freeze nor unfreeze.
    const byAgent = await d.raw(`/api/agents/${agentId}/unfreeze`, {
      method: 'POST',
      headers: { 'x-agent-key': agentKey },
    })
    expect(byAgent.status).toBe(403)
    expect(byAgent.body.code).toBe('FORBIDDEN')

    const thawed = await cli(['agent', 'unfreeze', agentId])
    expect(thawed.code, thawed.err).toBe(0)
    expect(JSON.parse(thawed.out).agents[0]).toMatchObject({ frozen: false, frozenAt: null })
    for (const [kind, spend] of Object.entries(spends)) {
      const r = await spend()
      expect(r.status, `${kind}: ${JSON.stringify(r.body)}`).toBe(200)
    }
    expect(await bal(to, 'PUSD')).toBe(before.to + 5n * 10n ** 17n)
    expect(paymentsSeen).toContain('/pusd')
    expect((await user.listChannels({ params: { id: agentId } })).channels).toHaveLength(1)
    expect(await rows()).toBeGreaterThanOrEqual(4)
  }, 180_000)

  it("--all freezes every agent of the user in one step, and only that user's", async () => {
    const second = await user.createAgent({ body: { name: 'second', network: 'local-radius' } })
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const stranger = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'other' } })).userKey,
    })
    const theirs = await stranger.createAgent({ body: { name: 'theirs', network: 'local-base' } })
    const all = await cli(['agent', 'freeze', '--all'])
    expect(all.code, all.err).toBe(0)
    const agents = JSON.parse(all.out).agents as { id: string; frozen: boolean }[]
    expect(agents.map((a) => a.id).sort()).toEqual([agentId, second.id].sort())
    expect(agents.every((a) => a.frozen)).toBe(true)
    expect((await stranger.showAgent({ params: { id: theirs.id } })).frozen).toBe(false)
    expect((await spends.send()).body.code).toBe('AGENT_FROZEN')
    expect((await cli(['agent', 'unfreeze', '--all'])).code).toBe(0)
    expect((await user.listAgents({})).agents.every((a) => !a.frozen)).toBe(true)
  }, 60_000)
})

describe('unfreeze that requires the dashboard', () => {
  let strict: TestDaemon
  beforeAll(async () => {
    strict = await startTestDaemon({ env: { PARX_UNFREEZE_REQUIRES_DASHBOARD: '1' } })
  }, 120_000)
  afterAll(async () => strict?.close())

  it('a user key freezes but cannot unfreeze; the signed-in owner unfreezes from the dashboard', async () => {
    const dash = dashboardClient(strict.urls.api)
    await dash.signIn(privateKeyToAccount(generatePrivateKey()), strict.services.base.chainId)
    const created = await dash.call('POST', '/agents', { name: 'dash', network: 'local-base' })
    expect(created.status).toBe(200)
    const id: string = created.body.id
    const key = await dash.call('POST', '/user-keys')
    expect(key.status).toBe(200)
    const headers = { 'x-user-key': key.body.userKey as string }
    const freeze = await strict.raw(`/api/agents/${id}/freeze`, { method: 'POST', headers })
    expect(freeze.status).toBe(200)
    expect(freeze.body.frozen).toBe(true)
    for (const path of [`/api/agents/${id}/unfreeze`, '/api/users/me/unfreeze']) {
      const r = await strict.raw(path, { method: 'POST', headers })
      expect(r.status, path).toBe(403)
      expect(r.body.code).toBe('FORBIDDEN')
      expect(r.body.error).toMatch(/dashboard/)
    }
    expect((await dash.call('GET', `/agents/${id}`)).body.agent).toMatchObject({ frozen: true })
    // Without the session's CSRF token the dashboard refuses too.
    expect((await dash.call('POST', `/agents/${id}/unfreeze`, undefined, { csrf: null })).status).toBe(403)
    const thawed = await dash.call('POST', `/agents/${id}/unfreeze`)
    expect(thawed.status).toBe(200)
    expect(thawed.body).toMatchObject({ id, frozen: false, frozenAt: null })
    expect((await strict.raw(`/api/agents/${id}`, { headers })).body.frozen).toBe(false)
  }, 60_000)
})
