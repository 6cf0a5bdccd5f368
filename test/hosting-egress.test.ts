import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { USDC } from '../src/networks/registry.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { officialBuyer } from './helpers/x402-buyers.js'

/**
 * Issue 25 item 1 on a testnet-profile daemon (on `parx chains --as testnet`): pay, an endpoint's
 * upstream and a webhook URL cannot reach a service inside. Loopback targets only (a broken guard
 * really connects; the other ranges are unit-tested as strings in daemon/egress/). The
 * internal service counts every request that reaches it: 0. The allow-list admits exactly one
 * host:port, another service on the same host stays refused. Checked when a URL is given and
 * again when a request is made: an endpoint whose upstream or webhook became an internal one (a
 * row changed under the API, as a name whose DNS changed would) is refused when a buyer pays it.
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
  `http://127.0.0.1:${port}/`,
  `http://[::1]:${port}/`,
  `http://[::ffff:127.0.0.1]:${port}/`,
  `http://2130706433:${port}/`,
  `http://0.0.0.0:${port}/`,
  `http://localhost:${port}/`,
]

beforeAll(async () => {
  internal = await counting('internal secret')
  admitted = await counting('an admitted seller')
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  d = await startTestDaemon({
    env: {
      ...chains.env,
      PARX_PLATFORM_WALLET_KEY: generatePrivateKey(),
      PARX_PUBLIC_ORIGIN: 'https://parx.example',
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
/** A buyer (the stock @x402/fetch client) holding 1 USDC on base-sepolia, from the chains' faucet. */
async function buyer(): Promise<typeof fetch> {
  const account = privateKeyToAccount(generatePrivateKey())
  const res = await fetch(chains.faucetUrl, {
    method: 'POST',
    body: JSON.stringify({ network: 'base-sepolia', to: account.address, token: USDC, amount: '1' }),
  })
  if (!res.ok) throw new Error(`faucet: ${res.status} ${await res.text()}`)
  return officialBuyer(d, account)
}
const admittedEndpoint = (userKey: string, extra: Record<string, unknown> = {}) =>
  post(
    '/api/endpoints',
    { 'x-user-key': userKey },
    {
      price: '0.01',
      network: 'base-sepolia',
      token: 'USDC',
      payTo: randomAddress(),
      upstreamUrl: `http://127.0.0.1:${admitted.port}/`,
      ...extra,
    },
  )
const paidUrl = (id: string) => `${d.urls.platform}/paid/${id}`
/** The endpoint's row changed under the API (what a name whose DNS now answers an inside address amounts to). */
const becomes = (id: string, change: { upstream_url?: string; webhook_url?: string }) =>
  d.services.store.db.updateTable('platform_endpoints').set(change).where('id', '=', id).execute()

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  d.raw(path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('egress guard on a testnet daemon', () => {
  it('pay refuses every loopback spelling with EGRESS_REFUSED (403) before anything is fetched or signed', async () => {
    const t = await seller()
    internal.hits = 0
    for (const url of probes(internal.port)) {
      for (const body of [
        { url },
        { url, method: 'PUT', headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' } },
        { url, dryRun: true },
      ]) {
        const r = await post(`/api/agents/${t.agentId}/pay`, { 'x-agent-key': t.agentKey }, body)
        expect([r.status, r.body.code], `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`).toEqual([
          403,
          'EGRESS_REFUSED',
        ])
        expect(JSON.stringify(r.body)).not.toContain('internal secret')
      }
    }
    // A port nothing listens on answers exactly the same: refusing never connects, so no port scan.
    const gone = await counting('')
    const closedPort = gone.port
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()))
    const closed = await post(
      `/api/agents/${t.agentId}/pay`,
      { 'x-agent-key': t.agentKey },
      { url: `http://127.0.0.1:${closedPort}/` },
    )
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
      const hook = await post('/api/endpoints', h, {
        ...base,
        upstreamUrl: `http://127.0.0.1:${admitted.port}/`,
        webhookUrl: url,
      })
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

  it('the allow-list admits exactly its host:port: pay and a paid endpoint reach it; the same host on another port stays refused', async () => {
    const t = await seller()
    internal.hits = 0
    admitted.hits = 0
    const free = await post(
      `/api/agents/${t.agentId}/pay`,
      { 'x-agent-key': t.agentKey },
      { url: `http://127.0.0.1:${admitted.port}/` },
    )
    expect(free.status, JSON.stringify(free.body)).toBe(200)
    expect(free.body).toMatchObject({ dryRun: false, status: 200, body: 'an admitted seller', receipt: null })
    expect(admitted.hits).toBe(1)
    // The same host on another port is not the entry: refused (pay and an endpoint's upstream alike).
    const otherPort = await post(
      `/api/agents/${t.agentId}/pay`,
      { 'x-agent-key': t.agentKey },
      { url: `http://127.0.0.1:${internal.port}/` },
    )
    expect([otherPort.status, otherPort.body.code]).toEqual([403, 'EGRESS_REFUSED'])
    const otherUpstream = await admittedEndpoint(t.userKey, { upstreamUrl: `http://127.0.0.1:${internal.port}/` })
    expect([otherUpstream.status, otherUpstream.body.code]).toEqual([403, 'EGRESS_REFUSED'])
    // Nor is another spelling of the admitted host on its port.
    const otherSpelling = await post(
      `/api/agents/${t.agentId}/pay`,
      { 'x-agent-key': t.agentKey },
      { url: `http://localhost:${admitted.port}/` },
    )
    expect(otherSpelling.body.code).toBe('EGRESS_REFUSED')
    // A paid endpoint whose upstream is the admitted service: a buyer pays it and gets the upstream's answer.
    const e = await admittedEndpoint(t.userKey, { webhookUrl: `http://127.0.0.1:${admitted.port}/hook` })
    expect(e.status, JSON.stringify(e.body)).toBe(200)
    expect(admitted.hits).toBe(1)
    const paid = await (await buyer())(paidUrl(e.body.id))
    expect([paid.status, await paid.text()]).toEqual([200, 'an admitted seller'])
    expect(paid.headers.get('payment-response')).toBeTruthy()
    // The upstream once, and the settlement webhook once (delivered in the background).
    await expect.poll(() => admitted.hits, { timeout: 20_000 }).toBe(3)
    expect(internal.hits).toBe(0)
  }, 120_000)

  it('an upstream refused when a buyer pays (not only when it was given): 502, not charged, nothing reaches it', async () => {
    const t = await seller()
    const e = await admittedEndpoint(t.userKey)
    expect(e.status, JSON.stringify(e.body)).toBe(200)
    await becomes(e.body.id, { upstream_url: `http://127.0.0.1:${internal.port}/` })
    internal.hits = 0
    const pay = await buyer()
    const r = await pay(paidUrl(e.body.id))
    expect(r.status).toBe(502)
    expect(await r.json()).toMatchObject({ code: 'SELLER_FAILED' })
    expect(r.headers.get('payment-response')).toBeNull()
    expect(internal.hits).toBe(0)
  }, 120_000)

  it('a settlement webhook whose URL became an internal one is refused at send time', async () => {
    const t = await seller()
    const e = await admittedEndpoint(t.userKey, { webhookUrl: `http://127.0.0.1:${admitted.port}/hook` })
    expect(e.status, JSON.stringify(e.body)).toBe(200)
    await becomes(e.body.id, { webhook_url: `http://127.0.0.1:${internal.port}/hook` })
    internal.hits = 0
    const paid = await (await buyer())(paidUrl(e.body.id))
    expect(paid.status).toBe(200)
    // The delivery is attempted (the settlement was paid) and refused before any socket opens.
    const delivery = () =>
      d.services.store.db
        .selectFrom('platform_webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', e.body.id)
        .executeTakeFirst()
    await expect.poll(async () => (await delivery())?.attempts ?? 0, { timeout: 20_000 }).toBeGreaterThan(0)
    const row = (await delivery())!
    expect(row.delivered_at).toBeNull()
    expect(row.last_error).toMatch(/EGRESS_REFUSED|not a public address/)
    expect(internal.hits).toBe(0)
  }, 120_000)
})
