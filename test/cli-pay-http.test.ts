import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import express from 'express'
import { evm, Mppx } from 'mppx/server'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * `parx pay` as curl: the compiled binary (and `parx mcp` through the MCP SDK's own client) pays
 * a POST with a JSON body to local sellers that price and answer a POST, one behind our x402 gate
 * and one stock mppx seller paid over MPP; each seller records every request it gets, unpaid and
 * paid, so the method, body and headers are checked as they arrived.
 */
type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string }
let d: TestDaemon
let x402Seller: { url: string; close(): Promise<void> }
let mppSeller: Server
let mppUrl = ''
const x402Seen: Seen[] = []
const mppSeen: Seen[] = []
const payTo: Address = randomAddress()
const mppPayTo: Address = randomAddress()
let agentId = ''
let agentKey = ''
let wallet: Address
const tmp = mkdtempSync(join(tmpdir(), 'parx-pay-http-'))

const echo = (s: Seen) => ({
  method: s.method,
  body: s.body,
  contentType: s.headers['content-type'],
  requestId: s.headers['x-request-id'],
})

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const user = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'curl user' } })).userKey,
  })
  const a = await user.createAgent({ body: { name: 'poster', network: 'local-base' } })
  agentId = a.id
  wallet = a.wallet as Address
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '1' } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '1' } })
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey

  // x402: our payment gate pricing a POST; every request is recorded before the gate sees it.
  const app = express()
  app.use(express.text({ type: '*/*' }))
  app.use((req, _res, next) => {
    x402Seen.push({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : '',
    })
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'POST /search': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo }] },
      },
    }),
  )
  app.post(
    '/search',
    (req, res) =>
      void res.json({ answer: 'x402 search', got: JSON.parse(req.body as string), accept: req.headers.accept }),
  )
  x402Seller = await listen(app)

  // MPP: the stock mppx seller (evm charge, USDC, settled by our facilitator).
  const usdc = d.services.base.tokens.USDC!
  const mppx = Mppx.create({
    secretKey: 'c'.repeat(64),
    realm: 'post-seller',
    methods: [
      evm.charge({
        currency: usdc.address,
        chainId: d.services.base.chainId,
        decimals: 6,
        authorization: usdc.permitDomain!,
        recipient: mppPayTo,
        x402: { facilitator: d.urls.facilitator },
      }),
    ],
  })
  mppSeller = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    const ended = new Promise((r) => req.once('end', r))
    const result = await Mppx.toNodeListener(mppx.charge({ amount: '0.01', description: 'a search' }))(req, res)
    await ended
    const seen = {
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    }
    mppSeen.push(seen)
    if (result.status === 402) return
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ answer: 'mpp search', got: JSON.parse(seen.body) }))
  })
  await new Promise<void>((r) => mppSeller.listen(0, '127.0.0.1', r))
  mppUrl = `http://127.0.0.1:${(mppSeller.address() as AddressInfo).port}`
}, 120_000)
afterAll(async () => {
  await x402Seller?.close()
  await new Promise((r) => mppSeller?.close(r))
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string }
/** The compiled `parx` as a script runs it: no terminal, the agent's key and id in the environment. */
function parx(args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_API_URL: d.urls.api,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    PARX_AGENT_KEY: agentKey,
    PARX_AGENT_ID: agentId,
    PARX_USER_KEY: '',
    NO_COLOR: '1',
  }
  const child = spawn(process.execPath, ['bin/parx.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}
const bal = (owner: Address, symbol: string) =>
  d.services.base.client.readContract({
    address: d.services.base.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })

describe('parx pay -X POST --json (compiled binary, real daemon)', () => {
  it('x402: the seller prices and answers the POST; body and headers arrive as sent, unpaid and paid', async () => {
    const r = await parx([
      'pay',
      '-X',
      'POST',
      '--json',
      '{"q":1}',
      '-H',
      'X-Request-Id: tour-1',
      `${x402Seller.url}/search`,
      '--output',
      'json',
    ])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const a = JSON.parse(r.stdout)
    expect(a).toMatchObject({
      dryRun: false,
      status: 200,
      receipt: { protocol: 'x402-v2', amount: '0.01', token: 'PUSD', payTo },
    })
    expect(JSON.parse(a.body)).toEqual({ answer: 'x402 search', got: { q: 1 }, accept: 'application/json' })
    // The 402 and the paid retry: both the POST the user typed.
    expect(x402Seen.map(echo)).toEqual(
      [0, 1].map(() => ({ method: 'POST', body: '{"q":1}', contentType: 'application/json', requestId: 'tour-1' })),
    )
    expect(x402Seen[1]!.headers['payment-signature']).toBeTruthy()
    expect(await bal(payTo, 'PUSD')).toBe(10n ** 16n)

    // Text mode: stdout is the seller's body alone; the receipt is on stderr.
    const t = await parx(['pay', '--json', '{"q":2}', '--url', `${x402Seller.url}/search`])
    expect(t.code, t.stderr).toBe(0)
    expect(JSON.parse(t.stdout)).toMatchObject({ got: { q: 2 } })
    expect(t.stderr).toMatch(/Paid 0\.01 PUSD on local-base \(x402-v2\)/)
  }, 120_000)

  it('MPP: --protocol mpp pays the stock mppx seller for the POST; the answer saved with --out', async () => {
    const out = join(tmp, 'answer.json')
    const r = await parx([
      'pay',
      '-X',
      'POST',
      '--json',
      '{"q":1}',
      '-H',
      'X-Request-Id: tour-2',
      '--protocol',
      'mpp',
      '--out',
      out,
      `${mppUrl}/search`,
    ])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/Paid 0\.01 USDC on local-base \(mpp\)/)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ answer: 'mpp search', got: { q: 1 } })
    expect(mppSeen.map(echo)).toEqual(
      [0, 1].map(() => ({ method: 'POST', body: '{"q":1}', contentType: 'application/json', requestId: 'tour-2' })),
    )
    expect(mppSeen[1]!.headers.authorization).toMatch(/^Payment /)
    expect(await bal(mppPayTo, 'USDC')).toBe(10_000n)
  }, 120_000)

  it('refused headers and a body on GET: usage exit code, nothing sent', async () => {
    const before = x402Seen.length
    const h = await parx(['pay', '-H', 'Authorization: Bearer x', '--json', '{}', `${x402Seller.url}/search`])
    expect(h.code).toBe(2)
    expect(h.stderr).toMatch(/'Authorization' is refused/)
    const g = await parx(['pay', '-X', 'GET', '-d', 'x', `${x402Seller.url}/search`, '--output', 'json'])
    expect(g.code).toBe(2)
    expect(JSON.parse(g.stdout)).toMatchObject({ code: 'USAGE', error: expect.stringMatching(/a GET has no body/) })
    expect(x402Seen.length).toBe(before)
  }, 60_000)

  it('--max below the price names the flag; --protocol mpp on an x402-only seller says MPP was not offered and what was', async () => {
    const before = await bal(wallet, 'PUSD')
    const max = await parx(['pay', '--max', '0.001', '--json', '{}', `${x402Seller.url}/search`, '--output', 'json'])
    expect(max.code).toBe(7)
    expect(JSON.parse(max.stdout)).toEqual({
      code: 'PRICE_ABOVE_MAX',
      error: 'the seller asks 0.01 PUSD, above --max 0.001; nothing was paid',
      requestId: expect.any(String),
      maxAmount: '0.001',
      amount: '0.01',
      token: 'PUSD',
    })
    const mpp = await parx(['pay', '--protocol', 'mpp', '--json', '{}', `${x402Seller.url}/search`, '--output', 'json'])
    expect(mpp.code).toBe(8)
    expect(JSON.parse(mpp.stdout)).toMatchObject({
      code: 'SELLER_METHOD_UNSUPPORTED',
      error: expect.stringMatching(
        /^the seller does not offer MPP \(no WWW-Authenticate: Payment challenge\); it offers x402 \(x402 exact .*eip155:\d+.*\): pay it with protocol x402 or none; nothing was paid$/,
      ),
    })
    expect(await bal(wallet, 'PUSD')).toBe(before)
  }, 60_000)

  it('the MCP pay tool pays a POST, through the MCP SDK client of `parx mcp`', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/parx.js', 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: tmp,
        PARX_CONFIG_DIR: join(tmp, 'mcp-conf'),
        PARX_RUNTIME_DIR: join(tmp, 'mcp-run'),
        PARX_AGENTS_URL: d.urls.platform,
        PARX_AGENT_KEY: agentKey,
      },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'parx-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      const before = x402Seen.length
      const r = await client.callTool({
        name: 'pay',
        arguments: {
          url: `${x402Seller.url}/search`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': 'mcp-1' },
          body: '{"q":3}',
          maxAmount: '0.01',
        },
      })
      const text = (r.content as { text: string }[])[0]!.text
      expect(r.isError, text).toBeFalsy()
      const a = JSON.parse(text)
      expect(a).toMatchObject({
        status: 200,
        receipt: { protocol: 'x402-v2', amount: '0.01', token: 'PUSD', payer: wallet },
      })
      expect(JSON.parse(a.body)).toMatchObject({ got: { q: 3 } })
      expect(x402Seen.slice(before).map(echo)).toEqual(
        [0, 1].map(() => ({ method: 'POST', body: '{"q":3}', contentType: 'application/json', requestId: 'mcp-1' })),
      )
    } finally {
      await client.close()
    }
  }, 120_000)
})
