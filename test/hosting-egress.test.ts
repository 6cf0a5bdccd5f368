import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStandaloneChains, type StandaloneChains } from '../daemon/chains/standalone.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'

/**
 * Issue 25 item 1 on a testnet-profile daemon (on `parx chains --as testnet`): pay, an endpoint's
 * upstream and a webhook URL cannot reach a service inside. Loopback targets only (a broken guard
 * really connects; the other ranges are unit-tested as strings in daemon/platform/egress/). The
 * internal service counts every request that reaches it: 0. The allow-list admits exactly one
 * host:port, another service on the same host stays refused.
 */
let chains: StandaloneChains
let d: TestDaemon
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))
const servers: Server[] = []
let internal: { port: number; hits: number }
let admitted: { port: number; hits: number }

async function counting(body: string) {
  const s = { port: 0, hits: 0 }
  const server = createServer((_req, res) => {
    s.hits++
    res.setHeader('content-type', 'text/plain')
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  s.port = (server.address() as AddressInfo).port
  return s
}

/** Every spelling of "this machine" the issue found reaching the internal service. */
const probes = (port: number) => [
  `http://127.0.0.1:${port}/`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`,
  `http://2130706433:${port}/`, `http://0.0.0.0:${port}/`, `http://localhost:${port}/`,
]

beforeAll(async () => {
  internal = await counting('internal secret')
  admitted = await counting('an admitted seller')
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  d = await startTestDaemon({
    env: {
      ...chains.env, PARX_PLATFORM_WALLET_KEY: generatePrivateKey(), PARX_PUBLIC_ORIGIN: 'https://parx.example',
      PARX_EGRESS_ALLOW: `127.0.0.1:${admitted.port}`,
    },
  })
}, 240_000)
afterAll(async () => {
  await d?.close()
  await chains?.stop()
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()))
  rmSync(chainsDir, { recursive: true, force: true })
})

async function seller() {
  // Users of a hosted profile come from a wallet sign-in on the dashboard; the store makes the same user and key.
  const { userKey } = await d.services.platform.store.createUser({ name: 'tenant' })
  const user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'agent', network: 'base-sepolia' } })
  const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
  return { userKey, agentId: a.id, agentKey }
}
const post = (path: string, headers: Record<string, string>, body: unknown) =>
  d.raw(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('egress guard on a testnet daemon', () => {
  it('pay refuses every loopback spelling with EGRESS_REFUSED (403) before anything is fetched or signed', async () => {
    const t = await seller()
    internal.hits = 0
    for (const url of probes(internal.port)) {
      for (const body of [{ url }, { url, method: 'PUT', headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' } }, { url, dryRun: true }]) {
        const r = await post(`/api/agents/${t.agentId}/pay`, { 'x-agent-key': t.agentKey }, body)
        expect([r.status, r.body.code], `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`).toEqual([403, 'EGRESS_REFUSED'])
        expect(JSON.stringify(r.body)).not.toContain('internal secret')
      }
    }
    // A port nothing listens on answers exactly the same: refusing never connects, so no port scan.
    const gone = await counting('')
    const closedPort = gone.port
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()))
    const closed = await post(`/api/agents/${t.agentId}/pay`, { 'x-agent-key': t.agentKey }, { url: `http://127.0.0.1:${closedPort}/` })
    expect([closed.status, closed.body.code]).toEqual([403, 'EGRESS_REFUSED'])
    expect(internal.hits).toBe(0)
    const spent = await d.raw(`/api/agents/${t.agentId}/limits`, { headers: { 'x-user-key': t.userKey } })
    expect(spent.body.spentTodayUsd).toBe('0')
  }, 120_000)

  it('endpoints and webhooks whose URL is inside are refused at creation and update', async () => {
    const t = await seller()
    const h = { 'x-user-key': t.userKey }
    const base = { price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: randomAddress() }
    internal.hits = 0
    for (const url of probes(internal.port)) {
      const up = await post('/api/endpoints', h, { ...base, upstreamUrl: url })
      expect([up.status, up.body.code], `${url}: ${JSON.stringify(up.body)}`).toEqual([403, 'EGRESS_REFUSED'])
      expect(up.body.error).toContain("'upstreamUrl'")
      const hook = await post('/api/endpoints', h, { ...base, upstreamUrl: `http://127.0.0.1:${admitted.port}/`, webhookUrl: url })
      expect([hook.status, hook.body.code], `${url}: ${JSON.stringify(hook.body)}`).toEqual([403, 'EGRESS_REFUSED'])
    }
    const ok = await post('/api/endpoints', h, { ...base, upstreamUrl: `http://127.0.0.1:${admitted.port}/data` })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    for (const url of probes(internal.port)) {
      const upd = await post(`/api/endpoints/${ok.body.id}`, h, { webhookUrl: url })
      expect([upd.status, upd.body.code], url).toEqual([403, 'EGRESS_REFUSED'])
    }
    expect((await d.raw(`/api/endpoints/${ok.body.id}`, { headers: h })).body.webhookUrl).toBeNull()
    expect(internal.hits).toBe(0)
  }, 120_000)

  it('the allow-list admits exactly its host:port: pay and an endpoint reach it; the same host on another port stays refused', async () => {
    const t = await seller()
    internal.hits = 0
    admitted.hits = 0
    const free = await post(`/api/agents/${t.agentId}/pay`, { 'x-agent-key': t.agentKey }, { url: `http://127.0.0.1:${admitted.port}/` })
    expect(free.status, JSON.stringify(free.body)).toBe(200)
    expect(free.body).toMatchObject({ dryRun: false, status: 200, body: 'an admitted seller', receipt: null })
    expect(admitted.hits).toBe(1)
    // The admitted port by another spelling of the host is not the entry: refused.
    const other = await post(`/api/agents/${t.agentId}/pay`, { 'x-agent-key': t.agentKey }, { url: `http://localhost:${admitted.port}/` })
    expect(other.body.code).toBe('EGRESS_REFUSED')
    const hook = await post('/api/endpoints', { 'x-user-key': t.userKey }, {
      price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: randomAddress(), upstreamUrl: `http://127.0.0.1:${admitted.port}/`, webhookUrl: `http://127.0.0.1:${admitted.port}/hook`,
    })
    expect(hook.status, JSON.stringify(hook.body)).toBe(200)
    expect(admitted.hits).toBe(1)
    expect(internal.hits).toBe(0)
  }, 120_000)
})
