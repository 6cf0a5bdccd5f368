import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/networks/registry.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import type { PaymentsPage, Report } from '../src/sdk/platform/history.js'
import type { Manifest } from '../src/sdk/platform/manifest.js'
import { verifyReceipt } from '../src/sdk/platform/receipt-verify.js'
import type { SignedReceipt } from '../src/sdk/platform/receipts.js'
import { fromBaseUnits, toBaseUnits } from '../src/sdk/units.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'

/**
 * `parx discover`, `parx payments` and `parx report` as the compiled binary runs them against a
 * real daemon (embedded chains), and the MCP `discover` and `history` tools through the MCP SDK's
 * own client. The history is checked against the chain: a scripted session (two pays, a send, a
 * swap) moves the agent's balances, and the report's per-token totals are those moves.
 */
let d: TestDaemon
let userKey = ''
let otherUserKey = ''
let agentKey = ''
let agentId = ''
let wallet: Address
let baseEndpoint = { url: '', id: '' }
let radiusEndpoint = { url: '', id: '' }
let external: Server
let externalUrl = ''
const tmp = mkdtempSync(join(tmpdir(), 'parx-history-'))
/** The compiled CLI; PARX_TEST_BIN runs a copy (a shared work tree whose dist/ another run rebuilds meanwhile). */
const bin = process.env.PARX_TEST_BIN ?? 'bin/parx.js'

beforeAll(async () => {
  // alto starts at once, so the session's send does not wait for its start on a loaded machine.
  d = await startTestDaemon({ flags: { bundler: { prestart: true } } })
  const alto = d.services.platform.aa['local-base']!.stack()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  ;({ userKey } = await op.createUser({ body: { name: 'buyer' } }))
  ;({ userKey: otherUserKey } = await op.createUser({ body: { name: 'someone else' } }))
  const seller = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
  })
  const user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'shopper', network: 'local-base' } })
  agentId = a.id
  wallet = a.wallet as Address
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  for (const token of ['PUSD', 'USDC'])
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token, amount: '2' } })
  await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '1', dailyUsd: '5' } })
  // Two listings: one this agent can pay, one on another network it cannot.
  const upstreamUrl = `${d.urls.api}/api/health`
  baseEndpoint = await seller.createEndpoint({
    body: {
      upstreamUrl,
      name: 'weather',
      description: 'Weather for a city, as JSON',
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: randomAddress(),
      discoverable: true,
    },
  })
  radiusEndpoint = await seller.createEndpoint({
    body: {
      upstreamUrl,
      name: 'radius weather',
      description: 'Weather again, on Radius',
      price: '0.02',
      network: 'local-radius',
      token: 'PUSD',
      payTo: randomAddress(),
      discoverable: true,
    },
  })

  // Another facilitator's bazaar, in the reference's shapes: a v2 item, a v1 item, and one that is not an item.
  const usdcOnBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
  external = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x')
    if (url.pathname !== '/facilitator/discovery/resources') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        x402Version: 2,
        items: [
          {
            resource: 'https://api.example.test/weather',
            type: 'http',
            x402Version: 2,
            lastUpdated: '2026-11-01T00:00:00Z',
            description: 'Weather, elsewhere',
            serviceName: 'Elsewhere Weather',
            accepts: [
              {
                scheme: 'exact',
                network: 'eip155:8453',
                amount: '10000',
                asset: usdcOnBase,
                payTo: randomAddress(),
                maxTimeoutSeconds: 60,
                extra: { name: 'USD Coin', version: '2' },
              },
            ],
          },
          {
            resource: 'https://v1.example.test/news',
            type: 'http',
            x402Version: 1,
            lastUpdated: '2026-11-01T00:00:00Z',
            description: 'News, x402 v1',
            accepts: [
              {
                scheme: 'exact',
                network: 'base-sepolia',
                maxAmountRequired: '5000',
                asset: randomAddress(),
                payTo: randomAddress(),
                resource: 'https://v1.example.test/news',
                description: 'news',
                mimeType: 'application/json',
                maxTimeoutSeconds: 60,
              },
            ],
          },
          { not: 'an item' },
        ],
        pagination: { limit: 100, offset: Number(url.searchParams.get('offset') ?? 0), total: 3 },
      }),
    )
  })
  await new Promise<void>((r) => external.listen(0, '127.0.0.1', r))
  externalUrl = `http://127.0.0.1:${(external.address() as AddressInfo).port}/facilitator`
  await alto
}, 240_000)
afterAll(async () => {
  await new Promise((r) => external?.close(r))
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string }
/** The compiled `parx` as a script runs it: no terminal; the agent's key by default, or the given keys. */
function parx(args: string[], keys: { agentKey?: string; userKey?: string } = { agentKey }): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_API_URL: d.urls.api,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    PARX_AGENT_KEY: keys.agentKey ?? '',
    PARX_AGENT_ID: keys.agentKey ? agentId : '',
    PARX_USER_KEY: keys.userKey ?? '',
    NO_COLOR: '1',
  }
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}
async function json<T>(args: string[], keys?: { agentKey?: string; userKey?: string }): Promise<T> {
  const r = await parx([...args, '-o', 'json'], keys)
  expect(r.code, `parx ${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(0)
  return JSON.parse(r.stdout) as T
}
const bal = (symbol: string) =>
  d.services.base.client.readContract({
    address: d.services.base.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [wallet],
  })

type Discovered = {
  facilitator: string
  agent: { id: string } | null
  sellers: {
    url: string
    price: string | null
    token: string | null
    network: string
    payable: boolean | null
    notPayable?: string
    name: string | null
    description: string | null
  }[]
  scanned: number
  skipped: number
}

describe('parx discover (compiled binary, real daemon)', () => {
  it("finds this platform's listed endpoints with their price, and marks the one on another network as not payable", async () => {
    const r = await json<Discovered>(['discover', 'weather'])
    expect(r.facilitator).toBe(`${d.urls.facilitator}/discovery/resources`)
    expect(r.agent).toEqual({ id: agentId, network: 'local-base' })
    const byUrl = Object.fromEntries(r.sellers.map((s) => [s.url, s]))
    expect(byUrl[baseEndpoint.url]).toMatchObject({
      price: '0.01',
      token: 'PUSD',
      network: 'local-base',
      payable: true,
      description: 'Weather for a city, as JSON',
    })
    expect(byUrl[radiusEndpoint.url]).toMatchObject({
      price: '0.02',
      token: 'PUSD',
      network: 'local-radius',
      payable: false,
      notPayable: 'on local-radius; this agent is on local-base',
    })
    expect(r.sellers).toHaveLength(2)

    expect((await json<Discovered>(['discover', '--network', 'local-base'])).sellers.map((s) => s.url)).toEqual([
      baseEndpoint.url,
    ])
    expect((await json<Discovered>(['discover', 'weather', '--max-price', '0.015'])).sellers.map((s) => s.url)).toEqual(
      [baseEndpoint.url],
    )
    expect((await json<Discovered>(['discover', '--token', 'USDC'])).sellers).toEqual([])
    expect((await json<Discovered>(['discover', 'radius'])).sellers.map((s) => s.url)).toEqual([radiusEndpoint.url])

    const text = await parx(['discover', 'weather'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`${baseEndpoint.url}\\n  0\\.01 PUSD on local-base.*  payable\\n`))
    expect(text.stdout).toMatch(
      /0\.02 PUSD on local-radius.*  not payable by this agent: on local-radius; this agent is on local-base\n/,
    )
  })

  it("reads another facilitator's bazaar (v2 and v1 items), skips what is not an item, and marks what this agent cannot pay", async () => {
    const r = await json<Discovered>(['discover', '--facilitator', externalUrl])
    expect(r).toMatchObject({ facilitator: `${externalUrl}/discovery/resources`, scanned: 2, skipped: 1 })
    expect(r.sellers.map((s) => [s.url, s.network, s.payable])).toEqual([
      ['https://api.example.test/weather', 'base', false],
      ['https://v1.example.test/news', 'base-sepolia', false],
    ])
    expect(r.sellers[0]).toMatchObject({
      name: 'Elsewhere Weather',
      notPayable: 'on base; this agent is on local-base',
    })
    expect(
      (await json<Discovered>(['discover', 'news', '--facilitator', externalUrl])).sellers.map((s) => s.url),
    ).toEqual(['https://v1.example.test/news'])
    // A facilitator that is not there, or not a bazaar: its own code, exit 1.
    const missing = await parx(['discover', '--facilitator', `${externalUrl}/nothing`, '-o', 'json'])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({
      code: 'DISCOVERY_UNREADABLE',
      error: expect.stringMatching(/HTTP 404/),
    })
  })
})

describe('parx payments and parx report (compiled binary, real daemon)', () => {
  let session: Promise<{ pusd: bigint; usdc: bigint; swapOut: string }> | undefined

  /** Two pays, a send and a swap, through the CLI (once for every test; a failure fails each); the balance moves read from the chain. */
  const scripted = () => (session ??= run())
  async function run() {
    const [pusd0, usdc0] = [await bal('PUSD'), await bal('USDC')]
    for (let i = 0; i < 2; i++) {
      const p = await json<{ receipt: { amount: string; token: string } }>(['pay', baseEndpoint.url, '--max', '0.05'])
      expect(p.receipt).toMatchObject({ amount: '0.01', token: 'PUSD' })
    }
    await json(['send', '--to', randomAddress(), '--amount', '0.5', '--token', 'PUSD'])
    const swap = await json<{ to: { token: string; amount: string } }>([
      'swap',
      '--from',
      'USDC',
      '--to',
      'PUSD',
      '--amount',
      '0.25',
    ])
    expect(swap.to.token).toBe('PUSD')
    const [pusd1, usdc1] = [await bal('PUSD'), await bal('USDC')]
    return { pusd: pusd0 - pusd1, usdc: usdc0 - usdc1, swapOut: swap.to.amount }
  }

  it('payments lists the session newest first, filters and pages it; report totals match the chain', async () => {
    const s = await scripted()
    const decimals = networks['local-base']!.tokens.find((t) => t.symbol === 'PUSD')!.decimals
    // What left the wallet in PUSD: what the balance lost, plus what the swap brought in.
    const pusdSpent = fromBaseUnits(s.pusd + toBaseUnits(s.swapOut, decimals), decimals)
    expect(pusdSpent).toBe('0.52')
    expect(fromBaseUnits(s.usdc, 6)).toBe('0.25')

    const all = await json<PaymentsPage>(['payments'])
    expect(all.nextCursor).toBeNull()
    expect(all.payments.map((p) => [p.kind, p.amount, p.token, p.state])).toEqual([
      ['swap', '0.25', 'USDC', 'confirmed'],
      ['send', '0.5', 'PUSD', 'confirmed'],
      ['pay', '0.01', 'PUSD', 'confirmed'],
      ['pay', '0.01', 'PUSD', 'confirmed'],
    ])
    expect(
      all.payments
        .filter((p) => p.kind === 'pay')
        .every((p) => p.host === '127.0.0.1' && /^0x[0-9a-f]{64}$/i.test(p.tx ?? '')),
    ).toBe(true)

    expect((await json<PaymentsPage>(['payments', '--kind', 'pay'])).payments).toHaveLength(2)
    expect((await json<PaymentsPage>(['payments', '--host', '127.0.0.1'])).payments).toHaveLength(2)
    expect(
      (await json<PaymentsPage>(['payments', '--since', '1h', '--kind', 'send'])).payments.map((p) => p.amount),
    ).toEqual(['0.5'])
    expect((await json<PaymentsPage>(['payments', '--until', '2020-01-01'])).payments).toEqual([])
    const first = await json<PaymentsPage>(['payments', '--limit', '3'])
    expect(first.payments.map((p) => p.id)).toEqual(all.payments.slice(0, 3).map((p) => p.id))
    expect(first.nextCursor).toBeTruthy()
    const second = await json<PaymentsPage>(['payments', '--limit', '3', '--cursor', first.nextCursor!])
    expect(second).toEqual({ payments: all.payments.slice(3), nextCursor: null })
    expect(await json<PaymentsPage>(['payments', '--limit', '3', '--page', '2'])).toEqual(second)

    const report = await json<Report>(['report'])
    expect(report.total).toEqual({ count: 4, usd: '0.77', pending: 0 })
    expect(report.byToken).toEqual([
      { token: 'PUSD', amount: pusdSpent, count: 3, usd: '0.52', pending: 0 },
      { token: 'USDC', amount: fromBaseUnits(s.usdc, 6), count: 1, usd: '0.25', pending: 0 },
    ])
    expect(report.byHost).toEqual([{ host: '127.0.0.1', count: 2, usd: '0.02', pending: 0 }])
    expect(report.byKind.map((k) => [k.kind, k.usd])).toEqual([
      ['send', '0.5'],
      ['swap', '0.25'],
      ['pay', '0.02'],
    ])
    expect(report.byDay).toEqual([{ day: new Date().toISOString().slice(0, 10), count: 4, usd: '0.77', pending: 0 }])
    expect(report.limits).toMatchObject({
      perPaymentUsd: '1',
      dailyUsd: '5',
      spentTodayUsd: '0.77',
      remainingTodayUsd: '4.23',
    })
  }, 180_000)

  it('csv: payments one row each, report a row per total and the limits', async () => {
    await scripted()
    const p = await parx(['payments', '-o', 'csv'])
    expect(p.code, p.stderr).toBe(0)
    const rows = p.stdout.trimEnd().split('\n')
    expect(rows[0]).toBe(
      'createdAt,kind,state,amount,token,amountUsd,host,recipient,tx,userOp,reason,id,holdId,held,holding,captured,voided,refunded,reclaimed',
    )
    expect(rows.slice(1).map((r) => r.split(',').slice(1, 6))).toEqual([
      ['swap', 'confirmed', '0.25', 'USDC', '0.25'],
      ['send', 'confirmed', '0.5', 'PUSD', '0.5'],
      ['pay', 'confirmed', '0.01', 'PUSD', '0.01'],
      ['pay', 'confirmed', '0.01', 'PUSD', '0.01'],
    ])
    const r = await parx(['report', '--output', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('section,key,count,usd,pending,amount')
    expect(lines).toEqual(
      expect.arrayContaining([
        'token,PUSD,3,0.52,0,0.52',
        'token,USDC,1,0.25,0,0.25',
        'host,127.0.0.1,2,0.02,0,',
        'kind,pay,2,0.02,0,',
        'limit,perPaymentUsd,,1,,',
        'limit,dailyUsd,,5,,',
        'limit,spentTodayUsd,,0.77,,',
        'limit,remainingTodayUsd,,4.23,,',
      ]),
    )
    expect(lines.filter((l) => l.startsWith('total,'))[0]).toMatch(/^total,[^,]+,4,0.77,0,$/)
    // csv is for these two only, refused before anything runs.
    const refused = await parx(['send', '--to', randomAddress(), '--amount', '0.1', '-o', 'csv'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--output csv is for parx payments and parx report/)
  }, 180_000)

  it("the agent's user reads the same history and report with --agent; another user cannot", async () => {
    await scripted()
    const asAgent = await json<PaymentsPage>(['payments'])
    expect(await json<PaymentsPage>(['payments', '--agent', agentId], { userKey })).toEqual(asAgent)
    const report = await json<Report>(['report', '--agent', agentId], { userKey })
    expect(report).toMatchObject({ agentId, total: { count: 4, usd: '0.77' } })
    const csv = await parx(['report', '--agent', agentId, '-o', 'csv'], { userKey })
    expect(csv.stdout).toContain('token,PUSD,3,0.52,0,0.52')
    const stranger = await parx(['payments', '--agent', agentId, '-o', 'json'], { userKey: otherUserKey })
    expect(stranger.code).toBe(6)
    expect(JSON.parse(stranger.stdout)).toMatchObject({ code: 'NOT_FOUND' })
    const which = await parx(['report', '-o', 'json'], { userKey })
    expect(which.code).toBe(2)
    expect(JSON.parse(which.stdout).error).toMatch(/--agent/)
  }, 180_000)

  it('the routes answer a malformed filter or cursor with 400 BAD_REQUEST naming it, never a 500', async () => {
    const get = (q: string, path = 'payments') =>
      d.raw(`/api/agents/${agentId}/${path}?${q}`, { headers: { 'x-agent-key': agentKey } })
    for (const [q, field] of [
      ['limit=abc', 'limit'],
      ['limit=0', 'limit'],
      ['cursor=zz', 'cursor'],
      ['kind=refund', 'kind'],
      ['since=yesterday', 'since'],
      ['nope=1', ''],
    ] as const) {
      const r = await get(q)
      expect([r.status, (r.body as { code: string }).code], q).toEqual([400, 'BAD_REQUEST'])
      expect((r.body as { error: string }).error).toContain(field)
    }
    const wide = await get('since=2020-01-01', 'report')
    expect([wide.status, (wide.body as { error: string }).error]).toEqual([
      400,
      expect.stringMatching(/at most 366 days/),
    ])
    const other = await d.raw(`/api/agents/${agentId}/payments`, { headers: { 'x-user-key': otherUserKey } })
    expect([other.status, (other.body as { code: string }).code]).toEqual([404, 'NOT_FOUND'])
  })

  it('the MCP tools history and discover answer through the MCP SDK client', async () => {
    await scripted()
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: tmp,
        PARX_CONFIG_DIR: join(tmp, 'mcp-conf'),
        PARX_RUNTIME_DIR: join(tmp, 'mcp-run'),
        PARX_AGENTS_URL: d.urls.platform,
        PARX_AGENT_KEY: agentKey,
      },
    })
    const client = new Client({ name: 'parx-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
        JSON.parse((r.content as { text: string }[])[0]!.text)
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['discover', 'history']))
      const page = text(
        await client.callTool({ name: 'history', arguments: { kind: 'pay', limit: 1 } }),
      ) as PaymentsPage
      expect(page.payments.map((p) => [p.kind, p.amount])).toEqual([['pay', '0.01']])
      const next = text(
        await client.callTool({ name: 'history', arguments: { kind: 'pay', limit: 1, cursor: page.nextCursor } }),
      ) as PaymentsPage
      expect(next.payments).toHaveLength(1)
      expect(next.nextCursor).toBeNull()
      // Each settled pay says it has a signed receipt; the tool hands it over by payment id, and it verifies against the manifest's signer.
      expect(page.payments[0]!.receipt).toBe(true)
      const signed = text(
        await client.callTool({ name: 'history', arguments: { receipt: page.payments[0]!.id } }),
      ) as SignedReceipt
      expect(signed.message).toMatchObject({
        paymentId: page.payments[0]!.id,
        agentId,
        symbol: 'PUSD',
        host: new URL(baseEndpoint.url).hostname,
      })
      const manifest = text(await client.callTool({ name: 'manifest', arguments: {} })) as Manifest
      expect(await verifyReceipt(signed, { signer: manifest.receipts.signer as Address })).toMatchObject({
        valid: true,
      })
      expect((await json<PaymentsPage>(['payments', '--kind', 'send'])).payments[0]!.receipt).toBe(false)
      const report = text(await client.callTool({ name: 'history', arguments: { report: true } })) as Report
      expect(report.byToken.map((t) => [t.token, t.amount])).toEqual([
        ['PUSD', '0.52'],
        ['USDC', '0.25'],
      ])
      const found = text(
        await client.callTool({ name: 'discover', arguments: { query: 'weather', network: 'local-base' } }),
      ) as Discovered
      expect(found.sellers.map((s) => [s.url, s.price, s.payable])).toEqual([[baseEndpoint.url, '0.01', true]])
      const bad = await client.callTool({ name: 'history', arguments: { since: 'yesterday' } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatchObject({ code: 'USAGE' })
    } finally {
      await client.close()
    }
  }, 120_000)
})
