import { EventEmitter } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { run as serve } from '../src/cli/commands/serve.js'
import { createContext } from '../src/cli/context.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, post, randomAddress, requirements } from './helpers/x402.js'

/**
 * Issue 25 item 7: hosted RPC URLs carry the provider's key (path, query or userinfo). A
 * `--profile testnet` daemon on `parx chains --as testnet`, reached through a 127.0.0.1 proxy that
 * wants those credentials, publishes none of them, and quotes none of them when the RPC fails. A URL
 * with userinfo is accepted at start-up and sent as Basic auth.
 */
const KEY = 'SECRETKEY123'
const QUERY = 'SECRETQ'
const PASS = 'SECRETPASS'
const BASIC = `Basic ${Buffer.from(`user:${PASS}`).toString('base64')}`
const leaks = (text: string) => [KEY, QUERY, PASS].filter((s) => text.includes(s))

let chains: StandaloneChains
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))

/**
 * The provider: `/<network>/v2/SECRETKEY123` forwards to the chain; with `basic` it answers 401 to a
 * request without the Authorization header. While `failing`, it drops every connection (the node is gone).
 */
type Provider = {
  url(net: string, o?: { userinfo?: boolean }): string
  failing: boolean
  authorized: number
  refused: number
  close(): Promise<void>
}

async function provider(basic: boolean): Promise<Provider> {
  const read = async (req: IncomingMessage) => {
    const parts: Buffer[] = []
    for await (const c of req) parts.push(c as Buffer)
    return Buffer.concat(parts)
  }
  const p = { failing: false, authorized: 0, refused: 0 } as Provider
  const server: Server = createServer(async (req, res) => {
    if (p.failing) return void req.socket.destroy()
    const [, net, v2, key] = (req.url ?? '').split('?')[0]!.split('/')
    const target = chains.rpc[net!]
    if (!target || v2 !== 'v2' || key !== KEY) return void res.writeHead(404).end()
    if (basic && req.headers.authorization !== BASIC) {
      p.refused++
      return void res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized')
    }
    if (basic) p.authorized++
    const up = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: await read(req),
    })
    res.writeHead(up.status, { 'content-type': 'application/json' }).end(Buffer.from(await up.arrayBuffer()))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  p.url = (net, o = {}) =>
    `http://${o.userinfo ? `user:${PASS}@` : ''}127.0.0.1:${port}/${net}/v2/${KEY}?apikey=${QUERY}`
  p.close = () =>
    new Promise((r) => {
      server.closeAllConnections()
      server.close(() => r())
    })
  return p
}

const rpcEnv = (p: Provider, userinfo: boolean) => ({
  ...chains.env,
  PARX_RPC_BASE_SEPOLIA: p.url('base-sepolia', { userinfo }),
  PARX_RPC_RADIUS_TESTNET: p.url('radius-testnet', { userinfo }),
  PARX_RPC_SOLANA_DEVNET: p.url('solana-devnet', { userinfo }),
})

beforeAll(async () => {
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
})
afterAll(async () => {
  await chains?.stop()
  rmSync(chainsDir, { recursive: true, force: true })
})

describe('RPC URLs with an API key in their path and query', () => {
  let p: Provider
  let d: TestDaemon
  beforeAll(async () => {
    p = await provider(false)
    d = await startTestDaemon({ env: rpcEnv(p, false) })
  })
  afterAll(async () => {
    await d?.close()
    await p?.close()
  })

  it('/api/config shows none of them (nothing there can be used without the key)', async () => {
    const r = await d.raw('/api/config')
    expect(r.status).toBe(200)
    expect(leaks(JSON.stringify(r.body))).toEqual([])
    expect(r.body.urls.rpc).toEqual({})
    expect(r.body.urls.api).toBe(d.urls.api)
  })

  it('/api/readiness, /facilitator/verify and /facilitator/settle quote no key when the RPC fails', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    const body = await eip3009Body(d, payer, requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress() }))
    p.failing = true
    try {
      const ready = await d.raw('/api/readiness')
      expect(ready.status).toBe(503)
      expect(ready.body.checks['base-sepolia'].ok).toBe(false)
      expect.soft(leaks(JSON.stringify(ready.body)), JSON.stringify(ready.body)).toEqual([])

      const v = await post(d, 'verify', body)
      expect(v.status).toBe(200)
      expect(v.body.isValid).toBe(false)
      expect.soft(leaks(JSON.stringify(v.body)), JSON.stringify(v.body)).toEqual([])

      const s = await post(d, 'settle', body)
      expect(s.body.success).toBe(false)
      expect.soft(leaks(JSON.stringify(s.body)), JSON.stringify(s.body)).toEqual([])
    } finally {
      p.failing = false
    }
  })
})

describe('RPC URLs with credentials in their userinfo (user:pass@host)', () => {
  let p: Provider
  let d: TestDaemon
  beforeAll(async () => {
    p = await provider(true)
    d = await startTestDaemon({ env: rpcEnv(p, true) })
  })
  afterAll(async () => {
    await d?.close()
    await p?.close()
  })

  it('are accepted at start-up and sent as Basic auth, on EVM and Solana alike', async () => {
    // The start-up identity check got through the proxy, which refuses anything without the header.
    expect(p.authorized).toBeGreaterThan(0)
    const before = p.authorized
    const ready = await d.raw('/api/readiness')
    expect(ready.status, JSON.stringify(ready.body)).toBe(200)
    expect(ready.body.checks).toMatchObject({
      'base-sepolia': { ok: true },
      'radius-testnet': { ok: true },
      'solana-devnet': { ok: true },
    })
    expect(p.authorized).toBeGreaterThanOrEqual(before + 3)
    expect(p.refused).toBe(0)
  })

  it('the password appears in no answer, nor in a failure', async () => {
    expect(leaks(JSON.stringify((await d.raw('/api/config')).body))).toEqual([])
    p.failing = true
    try {
      const ready = await d.raw('/api/readiness')
      expect(ready.status).toBe(503)
      expect(leaks(JSON.stringify(ready.body)), JSON.stringify(ready.body)).toEqual([])
    } finally {
      p.failing = false
    }
  })
})

/**
 * Issue 39 item 6: what `parx serve` prints and logs. The ready line, its `--output json` form and
 * the `parx daemon ready` line of parx.log show each RPC URL by its origin alone: terminals, CI
 * logs and log shippers see them, and the provider's key is in the path, query or userinfo.
 */
describe('the ready line, --output json and parx.log', () => {
  let p: Provider
  beforeAll(async () => {
    p = await provider(true)
  })
  afterAll(async () => p?.close())

  for (const output of ['text', 'json'] as const) {
    it(`${output}: each RPC URL by its origin, no key; parx.log neither`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'parx-ready-line-'))
      try {
        const lines: string[] = []
        const signals = new EventEmitter()
        const env = {
          ...rpcEnv(p, true),
          PARX_RUNTIME_DIR: join(dir, 'run'),
          PARX_CONFIG_DIR: join(dir, 'config'),
          NO_COLOR: '1',
        }
        const ctx = createContext({ env, stdout: (l) => lines.push(l), stderr: () => {} }, { output })
        const loadDaemon = async () => {
          const m = await import('../daemon/entry.js')
          void m.loadRoot()
          return m
        }
        const serving = serve({ port: '0', dataDir: join(dir, 'data'), logLevel: 'info' }, ctx, {
          loadDaemon,
          signals: signals as unknown as NodeJS.Process,
        })
        await until(
          async () => lines.length,
          (n) => n >= (output === 'json' ? 1 : 8),
          'the ready line',
        )
        signals.emit('SIGTERM')
        expect(await serving).toBe(0)
        const printed = lines.join('\n')
        expect(leaks(printed), printed).toEqual([])
        const origin = new URL(p.url('base-sepolia')).origin
        const shown =
          output === 'json'
            ? JSON.parse(lines[0]!).urls.rpc
            : Object.fromEntries(
                lines
                  .map((l) => l.split(/\s+/))
                  .filter(([k]) => k!.includes('-'))
                  .map(([k, v]) => [k, v]),
              )
        expect(shown).toEqual({ 'base-sepolia': origin, 'radius-testnet': origin, 'solana-devnet': origin })
        const log = readFileSync(join(dir, 'data', 'parx.log'), 'utf8')
        expect(log).toContain('parx daemon ready')
        expect(leaks(log), log.slice(0, 2000)).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  }
})
