import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, createPublicClient, erc20Abi, http } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { platformStore } from '../daemon/platform/store.js'
import { openStore, type Store } from '../daemon/store/store.js'
import { tokenSpec } from '../src/networks/registry.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { BATCH_SETTLEMENT_ADDRESS } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { encodeHeader } from '../src/sdk/x402/wire.js'
import { testPostgres } from './helpers/postgres.js'
import { type ReplicaProcess, serveReplica } from './helpers/replica.js'
import { randomAddress } from './helpers/x402.js'

/**
 * Issue 41's policy on the hosted topology, as an operator runs it: the compiled `parx serve` as
 * two `--role api` replicas and one `--role worker` on one PostgreSQL, on the chains of `parx
 * chains --as testnet`. Agents are driven over HTTP only, through both replicas.
 *
 * - A day budget that fits exactly N payments; 2N pays of one agent fired at once, split across
 *   the two replicas, to a platform endpoint: exactly N settle, the others are LIMIT_EXCEEDED
 *   (day), and the chain shows exactly N prices moved. Likewise a user's hour budget raced by two
 *   of its agents through both replicas.
 * - An agent frozen through replica A: replica B refuses its very next pay, send, swap and channel
 *   deposit with AGENT_FROZEN (before the freeze, the same calls reached the reservation, where the
 *   freeze is read: a tiny per-payment limit refused them there), and nothing was signed. The time
 *   from A's answer to B's first refusal is printed, not asserted.
 *
 * PostgreSQL only: this file runs in the `postgres` project.
 */
const N = 5
const PRICE = 10_000n // 0.01 USDC
const CHANNEL_PRICE = 1000n // 0.001 USDC

let chains: StandaloneChains
let storeUrl: string
/** The shared store, opened by the test only to create users: on testnet they sign in on the dashboard, the HTTP route is the local profile's. */
let admin: Store
const replicas: ReplicaProcess[] = []
const dirs: string[] = []
const servers: Server[] = []
let apiA: string
let apiB: string
/** Upstream hits (the endpoint serves only what was paid) and payment headers the channel seller saw. */
const upstreamHits: string[] = []
const channelPayments: string[] = []
let channelSellerUrl: string
let upstreamUrl: string
const channelPayTo = randomAddress()

const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}

async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A port free now, for a replica whose address must be on the egress allow-list before it starts. */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

beforeAll(async () => {
  storeUrl = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: tmp('parx-chains-'), port: 0 })
  const upstream = await serve(
    (req, res) => (upstreamHits.push(req.url ?? ''), res.end(JSON.stringify({ report: 'paid' }))),
  )
  upstreamUrl = `http://${upstream}/report`
  // A seller offering only an x402 batch-settlement channel in USDC, on the canonical contract: what an agent deposits into.
  const usdc = tokenSpec('base-sepolia', 'USDC')!
  const channelSeller = await serve((req, res) => {
    if (req.headers['payment-signature'] || req.headers['x-payment']) channelPayments.push(req.url ?? '')
    const accepts = [
      {
        scheme: 'batch-settlement',
        network: 'eip155:84532',
        asset: chains.contracts['base-sepolia']!.USDC,
        amount: CHANNEL_PRICE.toString(),
        payTo: channelPayTo,
        maxTimeoutSeconds: 60,
        extra: {
          name: usdc.permitDomain!.name,
          version: usdc.permitDomain!.version,
          receiverAuthorizer: randomAddress(),
          withdrawDelay: 900,
          verifyingContract: BATCH_SETTLEMENT_ADDRESS,
        },
      },
    ]
    res
      .writeHead(402, {
        'payment-required': encodeHeader({ x402Version: 2, resource: { url: channelSellerUrl }, accepts }),
      })
      .end('{}')
  })
  channelSellerUrl = `http://${channelSeller}/report`
  const [portA, portB] = [await freePort(), await freePort()]
  apiA = `http://127.0.0.1:${portA}`
  apiB = `http://127.0.0.1:${portB}`
  // Pays go from either replica to the endpoint (served by both), the upstream and the channel seller: admitted by host and port.
  const env = {
    ...chains.env,
    PARX_PLATFORM_WALLET_KEY: generatePrivateKey(),
    PARX_EGRESS_ALLOW: [`127.0.0.1:${portA}`, `127.0.0.1:${portB}`, upstream, channelSeller].join(','),
  }
  const start = (name: string, role: 'api' | 'worker', port = 0) =>
    serveReplica({ name, role, port, dataDir: tmp(`parx-${name}-`), chainsEnv: env, storeUrl })
  // The first replica migrates the store; then the second and the worker.
  replicas.push(await start('api-a', 'api', portA))
  replicas.push(...(await Promise.all([start('api-b', 'api', portB), start('worker', 'worker')])))
  expect(replicas.map((r) => r.api).slice(0, 2)).toEqual([apiA, apiB])
  admin = await openStore({ file: ':memory:', url: storeUrl })
}, 240_000)

afterAll(async () => {
  await admin?.close()
  for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM')
  await Promise.all(replicas.map((r) => r.exited))
  await chains?.stop()
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()))
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}, 120_000)

const chain = () => createPublicClient({ transport: http(chains.rpc['base-sepolia']) })
const usdcOf = (owner: string) =>
  chain().readContract({
    address: chains.contracts['base-sepolia']!.USDC as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  })
const faucet = async (network: string, to: string, token: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, { method: 'POST', body: JSON.stringify({ network, to, token, amount }) })
  expect(res.status).toBe(200)
}
const newUser = async (name: string) => {
  const { userKey } = await platformStore(admin, undefined).createUser({ name })
  return { userKey, onA: createPlatformClient({ url: apiA, userKey }) }
}
const agentOf = async (user: PlatformClient, name: string, network: string) => {
  const a = await user.createAgent({ body: { name, network } })
  return { ...a, agentKey: (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
}
/** An agent's call over HTTP to one replica, answered with its status and body. */
const call = async (api: string, agent: { id: string; agentKey: string }, verb: string, body: unknown) => {
  const res = await fetch(`${api}/api/agents/${agent.id}/${verb}`, {
    method: 'POST',
    headers: { 'x-agent-key': agent.agentKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { code?: string } }
}

describe('policy on the hosted topology (api + api + worker, PostgreSQL, compiled binary)', () => {
  let endpointUrl: string
  let payee: { id: string; wallet: string }

  it(`${2 * N} concurrent pays of one agent through both api replicas against a day budget of ${N} payments: exactly ${N} settle, the rest LIMIT_EXCEEDED; the chain agrees`, async () => {
    const seller = await newUser('seller')
    payee = await seller.onA.createAgent({ body: { name: 'payee', network: 'base-sepolia' } })
    endpointUrl = (
      await seller.onA.createEndpoint({
        body: { upstreamUrl, price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: payee.id },
      })
    ).url
    const buyer = await newUser('buyer')
    const agent = await agentOf(buyer.onA, 'racer', 'base-sepolia')
    await faucet('base-sepolia', agent.wallet, 'USDC', '1')
    await buyer.onA.setLimits({ params: { id: agent.id }, body: { dailyUsd: '0.05' } })
    const hitsBefore = upstreamHits.length

    const answers = await Promise.all(
      Array.from({ length: 2 * N }, (_, i) => call(i % 2 ? apiB : apiA, agent, 'pay', { url: endpointUrl })),
    )
    const paid = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status !== 200)
    expect(paid, JSON.stringify(answers.map((a) => [a.status, a.body.code ?? a.body.status]))).toHaveLength(N)
    for (const r of refused)
      expect([r.status, r.body]).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: 'day', scope: 'agent', limitUsd: '0.05' },
      ])
    for (const p of paid)
      expect(p.body.receipt).toMatchObject({
        amount: '0.01',
        token: 'USDC',
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      })

    // On chain: exactly N prices left the agent and reached the payee; the seller's upstream served N.
    expect(await usdcOf(payee.wallet)).toBe(BigInt(N) * PRICE)
    expect(await usdcOf(agent.wallet)).toBe(1_000_000n - BigInt(N) * PRICE)
    expect(upstreamHits.length - hitsBefore).toBe(N)
    const limits = await createPlatformClient({ url: apiB, userKey: buyer.userKey }).getLimits({
      params: { id: agent.id },
    })
    expect(limits.windows.day).toEqual({ limitUsd: '0.05', spentUsd: '0.05', remainingUsd: '0' })
  }, 240_000)

  it(`the user's hour budget of ${N} payments, raced by two of its agents through both replicas: exactly ${N} settle across them (rounds)`, async () => {
    // Rounds, each a fresh user: a race lost only once in a while still shows.
    for (let round = 0; round < 4; round++) {
      const owner = await newUser(`owner-of-two-${round}`)
      const agents = [await agentOf(owner.onA, 'one', 'base-sepolia'), await agentOf(owner.onA, 'two', 'base-sepolia')]
      for (const a of agents) await faucet('base-sepolia', a.wallet, 'USDC', '1')
      await owner.onA.setUserLimits({ body: { hourlyUsd: '0.05' } })
      const payeeBefore = await usdcOf(payee.wallet)
      // Each agent pays through both replicas: four streams on one user's budget.
      const answers = await Promise.all(
        Array.from({ length: 2 * N }, (_, i) =>
          call(i % 2 ? apiB : apiA, agents[Math.floor(i / 2) % 2]!, 'pay', { url: endpointUrl }),
        ),
      )
      const paid = answers.filter((a) => a.status === 200)
      expect(
        paid,
        `round ${round}: ${JSON.stringify(answers.map((a) => [a.status, a.body.code ?? a.body.status]))}`,
      ).toHaveLength(N)
      for (const r of answers.filter((a) => a.status !== 200))
        expect([r.status, r.body]).toMatchObject([
          403,
          { code: 'LIMIT_EXCEEDED', limit: 'hour', scope: 'user', limitUsd: '0.05' },
        ])
      expect(await usdcOf(payee.wallet)).toBe(payeeBefore + BigInt(N) * PRICE)
      const left = await Promise.all(agents.map((a) => usdcOf(a.wallet)))
      expect(left.reduce((x, y) => x + y, 0n)).toBe(2_000_000n - BigInt(N) * PRICE)
    }
  }, 240_000)

  it('frozen through replica A, replica B refuses the next pay, send, swap and channel deposit with AGENT_FROZEN; nothing signed', async () => {
    const owner = await newUser('owner')
    const base = await agentOf(owner.onA, 'base', 'base-sepolia')
    const radius = await agentOf(owner.onA, 'radius', 'radius-testnet')
    await faucet('base-sepolia', base.wallet, 'USDC', '1')
    // A limit nothing fits: before the freeze each call reaches the reservation (where the freeze is read) and is refused there.
    for (const a of [base, radius])
      await owner.onA.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.000001' } })
    const attempts = {
      pay: () => call(apiB, base, 'pay', { url: endpointUrl }),
      deposit: () => call(apiB, base, 'pay', { url: channelSellerUrl }),
      swap: () => call(apiB, base, 'swap', { from: 'USDC', to: 'PUSD', amount: '1' }),
      send: () => call(apiB, radius, 'send', { to: randomAddress(), amount: '1' }),
    }
    const kinds = Object.keys(attempts) as (keyof typeof attempts)[]
    for (const k of kinds) expect([k, (await attempts[k]()).body.code]).toEqual([k, 'LIMIT_EXCEEDED'])
    const hitsBefore = upstreamHits.length
    const onB = createPlatformClient({ url: apiB, userKey: owner.userKey })
    // The refused deposit's reservation was released before anything was signed (the voucher was over the per-payment limit).
    const rows = async () =>
      (await Promise.all([base, radius].map((a) => onB.listPayments({ params: { id: a.id } })))).flatMap(
        (p) => p.payments,
      )
    const before = await rows()
    expect(before.filter((r) => r.state !== 'released')).toEqual([])

    for (const a of [radius, base]) {
      const frozen = await fetch(`${apiA}/api/agents/${a.id}/freeze`, {
        method: 'POST',
        headers: { 'x-user-key': owner.userKey },
      })
      expect(frozen.status).toBe(200)
    }
    // From the moment A answered the freeze: every kind of spend at once on B, each timed to its refusal.
    const answered = performance.now()
    const refusals = await Promise.all(
      kinds.map(async (k) => {
        const r = await attempts[k]()
        return { kind: k, ms: performance.now() - answered, status: r.status, code: r.body.code }
      }),
    )
    for (const r of refusals) expect([r.kind, r.status, r.code]).toEqual([r.kind, 423, 'AGENT_FROZEN'])
    const first = Math.min(...refusals.map((r) => r.ms))
    console.log(
      JSON.stringify({
        figure: 'freeze on replica A to first refusal on replica B',
        ms: Number(first.toFixed(1)),
        perKindMs: Object.fromEntries(refusals.map((r) => [r.kind, Number(r.ms.toFixed(1))])),
      }),
    )

    // Nothing signed or moved: no payment reached a seller, no spend or channel was recorded, no token left the wallet.
    expect(channelPayments).toEqual([])
    expect(upstreamHits.length).toBe(hitsBefore)
    expect(await usdcOf(base.wallet)).toBe(1_000_000n)
    expect(await usdcOf(channelPayTo)).toBe(0n)
    expect(await rows()).toEqual(before)
    expect((await onB.listChannels({ params: { id: base.id } })).channels).toEqual([])
    expect((await onB.showAgent({ params: { id: base.id } })).frozen).toBe(true)
  }, 240_000)
})
