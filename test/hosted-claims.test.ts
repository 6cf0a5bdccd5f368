import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { erc20Abi, parseAbi, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStandaloneChains, type StandaloneChains } from '../daemon/chains/standalone.js'
import { BATCH_SETTLEMENT_ADDRESS } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'
import { randomAddress } from './helpers/x402.js'

/**
 * Issue 39 items 1 and 2 on the hosted topology: one `--role api` and one `--role worker` on one
 * PostgreSQL, `--profile testnet` on the chains of `parx chains --as testnet`, the receiver
 * authorizer configured (PARX_BATCH_RECEIVER_AUTHORIZER_KEY). A platform batch-settlement endpoint
 * is paid through the api replica by the official @x402 batch-settlement client (one deposit, then
 * vouchers); then, with no request to the api replica, the worker (which serves no /facilitator
 * route) claims and sweeps: the channel's totalClaimed on chain is what was charged, payTo holds
 * it, the seller's webhook fired once, and the worker's metrics count the claim. A testnet daemon
 * without an authorizer refuses to create a batch-settlement endpoint. PostgreSQL only.
 */
const PRICE = 1000n // 0.001 USDC
const CALLS = 5n
let chains: StandaloneChains
let api: TestDaemon
let worker: TestDaemon
let bare: TestDaemon
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))
const servers: Server[] = []
let upstream: { url: string; hits: number }
let hook: { url: string; got: string[] }
const authorizerKey = generatePrivateKey()
const channels = parseAbi(['function channels(bytes32) view returns (uint128 balance, uint128 totalClaimed)'])

async function serve(handle: (body: string) => string) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      res.setHeader('content-type', 'application/json')
      res.end(handle(body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  upstream = { url: '', hits: 0 }
  upstream.url = `${await serve(() => (upstream.hits++, JSON.stringify({ report: 'paid' })))}/report`
  hook = { url: '', got: [] }
  hook.url = `${await serve((b) => (hook.got.push(b), '{}'))}/hook`
  const url = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  const env = {
    ...chains.env, PARX_PLATFORM_WALLET_KEY: generatePrivateKey(), PARX_BATCH_RECEIVER_AUTHORIZER_KEY: authorizerKey,
    PARX_EGRESS_ALLOW: [upstream.url, hook.url].map((u) => new URL(u).host).join(','),
  }
  // The api replica first: it migrates the store. Only the worker's claim settings matter: it alone claims.
  api = await startTestDaemon({ env, flags: { store: { url }, role: 'api' } })
  worker = await startTestDaemon({
    env, flags: { store: { url }, role: 'worker', sellerChannels: { claimEverySeconds: 0.2, claimMinUnclaimed: String(CALLS * PRICE), claimMaxAgeSeconds: 3600 } },
  })
  // Another deployment on the same chains, with no receiver authorizer.
  bare = await startTestDaemon({ env: { ...chains.env, PARX_PLATFORM_WALLET_KEY: generatePrivateKey() } })
}, 240_000)
afterAll(async () => {
  await Promise.all([api?.close(), worker?.close(), bare?.close()])
  await chains?.stop()
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()))
  rmSync(chainsDir, { recursive: true, force: true })
})

/** A user of a hosted profile: a wallet sign-in on the dashboard makes it; the store makes the same user and key. */
const sellerOn = async (d: TestDaemon) => createPlatformClient({ url: d.urls.platform, userKey: (await d.services.platform.store.createUser({ name: 'seller' })).userKey })
const faucet = async (to: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, { method: 'POST', body: JSON.stringify({ network: 'base-sepolia', to, token: 'USDC', amount }) })
  expect(res.status).toBe(200)
}

describe('batch-settlement channels on the hosted topology (api + worker, PostgreSQL, testnet)', () => {
  it('a deployment without a receiver authorizer refuses a batch-settlement endpoint, naming the setting', async () => {
    const seller = await sellerOn(bare)
    const body = { upstreamUrl: 'https://seller.example/report', price: '0.001', network: 'base-sepolia', token: 'USDC', payTo: randomAddress() }
    // Through the SDK client: the error carries the code and the status.
    await expect(seller.createEndpoint({ body: { ...body, batchSettlement: true } })).rejects.toMatchObject({ code: 'BATCH_AUTHORIZER_NOT_CONFIGURED', status: 409, message: expect.stringContaining('PARX_BATCH_RECEIVER_AUTHORIZER_KEY') })
    // The same endpoint without channels is created.
    expect((await seller.createEndpoint({ body })).batchSettlement).toBe(false)
  })

  it('paid through the api replica by the official client; the worker alone claims and sweeps; one webhook; the claim counted', async () => {
    const seller = await sellerOn(api)
    const payTo = randomAddress()
    const e = await seller.createEndpoint({ body: { upstreamUrl: upstream.url, price: '0.001', network: 'base-sepolia', token: 'USDC', payTo, webhookUrl: hook.url, batchSettlement: true } })
    expect(e.url.startsWith(api.urls.platform)).toBe(true)
    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    const terms = decodeHeader(unpaid.headers.get('payment-required') ?? undefined) as { accepts: { scheme: string; extra: Record<string, unknown> }[] }
    expect(terms.accepts.find((a) => a.scheme === 'batch-settlement')!.extra.receiverAuthorizer).toBe(privateKeyToAccount(authorizerKey).address)

    // Chain reads go straight to the chain (the worker's client), never through the api replica.
    const chain = worker.services.evm['base-sepolia']!
    const usdc = chains.contracts['base-sepolia']!.USDC as Address
    const balance = (owner: Address) => chain.client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    const buyer = privateKeyToAccount(generatePrivateKey())
    await faucet(buyer.address, '1')
    const client = x402Client.fromConfig({
      schemes: [{ network: 'eip155:*', client: new BatchClient(toClientEvmSigner(buyer, chain.client as never), { depositStrategy: () => '20000' }) }],
      spendControls: { allowedAssets: [{ network: chain.spec.caip2 as `${string}:${string}`, asset: usdc, maxAmountPerPayment: '10000' }] },
    })
    const pay = wrapFetchWithPayment(fetch, client)
    let channelId: Hex | undefined
    for (let i = 0n; i < CALLS; i++) {
      const res = await pay(e.url)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ report: 'paid' })
      const settled = decodeHeader(res.headers.get('payment-response') ?? undefined) as { extra?: { channelState?: { channelId?: Hex } } } | undefined
      channelId ??= settled?.extra?.channelState?.channelId
    }
    expect(upstream.hits).toBe(Number(CALLS))
    expect(channelId).toMatch(/^0x[0-9a-f]{64}$/)

    // From here on, nothing is asked of the api replica (it only delivers the queued webhook).
    await until(() => balance(payTo), (v) => v === CALLS * PRICE, 'the sweep to payTo')
    const [deposited, totalClaimed] = await chain.client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: channels, functionName: 'channels', args: [channelId!] })
    expect([deposited, totalClaimed]).toEqual([20_000n, CALLS * PRICE])
    expect(await balance(buyer.address)).toBe(1_000_000n - 20_000n)
    const body = JSON.parse((await until(async () => hook.got, (got) => got.length > 0, 'the webhook'))[0]!)
    expect(body).toMatchObject({
      type: 'settlement.succeeded',
      data: { endpointId: e.id, scheme: 'batch-settlement', amount: '0.005', channels: 1, token: 'USDC', success: true, transaction: expect.stringMatching(/^0x/), claimTransaction: expect.stringMatching(/^0x/) },
    })
    // The worker's rounds after the sweep find nothing due: still one webhook, one claimed channel.
    const metrics = async () => (await worker.raw('/metrics', { headers: worker.operatorHeaders() })).body as string
    const idleAfterSweep = (await metrics()).match(/^parx_channel_claim_rounds_total\{outcome="idle"\} (\d+)$/m)?.[1]
    await until(metrics, (m) => Number(m.match(/^parx_channel_claim_rounds_total\{outcome="idle"\} (\d+)$/m)?.[1] ?? 0) >= Number(idleAfterSweep ?? 0) + 3, 'three more rounds')
    const m = await metrics()
    expect(m).toMatch(/^parx_channel_claims_total\{outcome="claimed"\} 1$/m)
    expect(m).toMatch(/^parx_channel_claim_rounds_total\{outcome="ok"\} 1$/m)
    expect(m).not.toMatch(/^parx_channel_claim_rounds_total\{outcome="(failed|error)"\}/m)
    expect(hook.got).toHaveLength(1)
  })
})
