import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import pg from 'pg'
import { type Address, erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { AUTH_CAPTURE_V1_1, authCaptureEscrowAbi } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'
import { type ReplicaProcess, serveReplica } from './helpers/replica.js'

/**
 * Issue 40 on the hosted topology: a `--role api` replica (its own process) and a `--role worker`
 * on one PostgreSQL, `--profile testnet` on the chains of `parx chains --as testnet`, the receiver
 * authorizer configured. A platform endpoint offering auth-capture is paid through the api replica
 * by the official @x402/fetch + auth-capture client (USDC, no ETH): held and captured, in full, and
 * in part where the upstream reports what it used (the rest voided in the same settle). A second
 * paid call is held and its replica killed (-9) while the upstream works, so the hold is left
 * uncaptured; with the api replica gone, the worker's sweep voids it (its row aged past the
 * sweep's 10 minutes in the store, not by waiting) and the buyer is whole on chain. The seller's
 * webhooks (payment.authorized, captured, voided, the last queued by the worker) are delivered
 * once each by the next api replica. PostgreSQL only.
 */
const PRICE = 1000n // 0.001 USDC
let chains: StandaloneChains
let api: ReplicaProcess | undefined
let worker: TestDaemon
let storeUrl: string
let env: NodeJS.ProcessEnv
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))
const dataDirs: string[] = []
const servers: Server[] = []
const hook: { url: string; got: Array<{ type: string; data: Record<string, unknown> }> } = { url: '', got: [] }
const upstream: { url: string; slow: ServerResponse[] } = { url: '', slow: [] }

async function serve(handle: (path: string, body: string, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => handle(req.url ?? '', body, res))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const startApi = async (name: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), `parx-${name}-`))
  dataDirs.push(dataDir)
  return serveReplica({ name, role: 'api', dataDir, chainsEnv: env, storeUrl, detached: true })
}
/** kill -9 of the replica's process group: nothing it had in flight finishes. */
const killApi = async (r: ReplicaProcess) => {
  process.kill(-r.child.pid!, 'SIGKILL')
  await r.exited
}

beforeAll(async () => {
  upstream.url = await serve((path, _b, res) => {
    if (path === '/slow') return void upstream.slow.push(res)
    // /used: served for 400 of the 1000 held, as the upstream reports it (Settlement-Overrides).
    if (path === '/used') res.setHeader('settlement-overrides', JSON.stringify({ amount: '400' }))
    res.end(JSON.stringify({ report: 'paid' }))
  })
  hook.url = `${await serve((_p, b, res) => (hook.got.push(JSON.parse(b)), res.end('{}')))}/hook`
  storeUrl = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  env = {
    ...chains.env,
    PARX_PLATFORM_WALLET_KEY: generatePrivateKey(),
    PARX_BATCH_RECEIVER_AUTHORIZER_KEY: generatePrivateKey(),
    PARX_EGRESS_ALLOW: [upstream.url, hook.url].map((u) => new URL(u).host).join(','),
    // The worker leader's hold sweep every half second (default 30 s): the void follows the hold's aging at once.
    PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS: '0.5',
  }
  // The api replica first: it migrates the store.
  api = await startApi('api-a')
  worker = await startTestDaemon({ env, flags: { store: { url: storeUrl }, role: 'worker' } })
}, 240_000)
afterAll(async () => {
  for (const r of upstream.slow) r.destroy()
  if (api) await killApi(api)
  await worker?.close()
  await chains?.stop()
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()))
  for (const d of [chainsDir, ...dataDirs]) rmSync(d, { recursive: true, force: true })
})

describe('auth-capture endpoints on the hosted topology (api + worker, PostgreSQL, testnet)', () => {
  it("held and captured through the api replica; a hold its replica died with is voided by the worker's sweep; each webhook once", async () => {
    const seller = createPlatformClient({
      url: api!.api,
      userKey: (await worker.services.platform.store.createUser({ name: 'seller' })).userKey,
    })
    const agent = await seller.createAgent({ body: { name: 'payee', network: 'base-sepolia' } })
    const body = {
      upstreamUrl: `${upstream.url}/report`,
      price: '0.001',
      network: 'base-sepolia',
      token: 'USDC',
      payTo: agent.id,
      authCapture: true,
      webhookUrl: hook.url,
    }
    const e = await seller.createEndpoint({ body })
    const slow = await seller.createEndpoint({ body: { ...body, upstreamUrl: `${upstream.url}/slow` } })
    const used = await seller.createEndpoint({ body: { ...body, upstreamUrl: `${upstream.url}/used` } })

    const chain = worker.services.evm['base-sepolia']!
    const usdc = chains.contracts['base-sepolia']!.USDC as Address
    const balance = (owner: string) =>
      chain.client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] })
    const state = (id: string) =>
      chain.client.readContract({
        address: AUTH_CAPTURE_V1_1.escrow,
        abi: authCaptureEscrowAbi['v1.1'],
        functionName: 'paymentState',
        args: [id as Hex],
      }) as Promise<readonly [boolean, bigint, bigint]>
    const buyer = privateKeyToAccount(generatePrivateKey())
    expect(
      (
        await fetch(chains.faucetUrl, {
          method: 'POST',
          body: JSON.stringify({ network: 'base-sepolia', to: buyer.address, token: 'USDC', amount: '1' }),
        })
      ).status,
    ).toBe(200)
    const pay = wrapFetchWithPayment(
      fetch,
      x402Client.fromConfig({
        schemes: [
          { network: 'eip155:*', client: new AuthCaptureEvmScheme(toClientEvmSigner(buyer, chain.client as never)) },
        ],
        spendControls: {
          allowedAssets: [
            { network: chain.spec.caip2 as `${string}:${string}`, asset: usdc, maxAmountPerPayment: '10000' },
          ],
        },
      }),
    )

    const r = await pay(e.url)
    expect(r.status).toBe(200)
    const captured = decodeHeader(r.headers.get('payment-response') ?? undefined) as { extra: Record<string, unknown> }
    expect(captured).toMatchObject({ success: true, amount: '1000', extra: { operation: 'capture', voided: '0' } })
    expect(await balance(buyer.address)).toBe(1_000_000n - PRICE)
    expect(await balance(agent.wallet)).toBe(PRICE)

    // What the upstream reports it used is captured through the api replica, the rest voided in the same settle.
    const part = await pay(used.url)
    expect(part.status).toBe(200)
    expect(part.headers.get('settlement-overrides')).toBeNull()
    expect(decodeHeader(part.headers.get('payment-response') ?? undefined)).toMatchObject({
      success: true,
      amount: '400',
      extra: { operation: 'capture', voided: '600' },
    })
    const spent = PRICE + 400n
    expect(await balance(buyer.address)).toBe(1_000_000n - spent)
    expect(await balance(agent.wallet)).toBe(spent)

    // The second call is held, then its replica dies while the upstream works on it.
    const cut = pay(slow.url).then(
      () => 'answered',
      () => 'cut',
    )
    await until(
      async () => upstream.slow.length,
      (n) => n === 1,
      'the held call to reach the upstream',
    )
    const [held] = await worker.services.platform.sellerHolds.list(['held'])
    expect(held).toMatchObject({ tag: slow.id, payer: buyer.address })
    expect(await state(held!.id)).toEqual([true, PRICE, 0n])
    await killApi(api!)
    api = undefined
    expect(await cut).toBe('cut')
    expect(await balance(buyer.address)).toBe(1_000_000n - spent - PRICE)

    // Ten minutes untouched, as the store sees it: the worker's sweep (leader, every 0.5 s here) voids it; no api
    // replica runs.
    const db = new pg.Client({ connectionString: storeUrl })
    await db.connect()
    await db.query('update x402_seller_holds set updated_at = updated_at - 660000 where id = $1', [held!.id])
    await db.end()
    await until(
      () => state(held!.id).then((s) => s.map(String)),
      (s) => s[1] === '0',
      'the worker to void the hold',
      90_000,
    )
    expect(await state(held!.id)).toEqual([true, 0n, 0n])
    expect(await balance(buyer.address)).toBe(1_000_000n - spent)
    expect(await balance(agent.wallet)).toBe(spent)
    // The sweep records the void once its transaction is in, a moment after the chain shows it.
    await until(
      () => worker.services.platform.sellerHolds.get(held!.id),
      (h) => h?.status === 'voided',
      'the sweep to record the void',
      30_000,
    )
    expect(await worker.services.platform.sellerHolds.get(held!.id)).toMatchObject({
      status: 'voided',
      voided: '1000',
      captured: '0',
    })
    expect(await chain.client.getBalance({ address: buyer.address })).toBe(0n)

    // The next api replica delivers what was queued: each operation once.
    api = await startApi('api-b')
    const events = await until(
      async () => hook.got,
      (got) => got.length >= 6,
      'the webhooks',
      60_000,
    )
    const of = (id: string) =>
      events
        .filter((x) => x.data.endpointId === id)
        .map((x) => [x.type, x.data.amount])
        .sort()
    expect(of(e.id)).toEqual([
      ['payment.authorized', '0.001'],
      ['payment.captured', '0.001'],
    ])
    expect(of(slow.id)).toEqual([
      ['payment.authorized', '0.001'],
      ['payment.voided', '0.001'],
    ])
    expect(of(used.id)).toEqual([
      ['payment.authorized', '0.001'],
      ['payment.captured', '0.0004'],
    ])
    expect(events.find((x) => x.type === 'payment.voided')!.data).toMatchObject({
      paymentId: held!.id,
      payer: buyer.address,
      scheme: 'auth-capture',
    })
  }, 240_000)
})
