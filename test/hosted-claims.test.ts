import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Challenge } from 'mppx'
import { evm } from 'mppx/client'
import { type Address, erc20Abi, type Hex, parseAbi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { tokenSpec } from '../src/networks/registry.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { BATCH_SETTLEMENT_ADDRESS } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type HostileChannelSeller, hostileChannelSeller } from './helpers/hostile-channel-seller.js'
import { testPostgres } from './helpers/postgres.js'
import { randomAddress } from './helpers/x402.js'
import { recordingFetch } from './helpers/x402-buyers.js'

/**
 * Issue 39 items 1 and 2 on the hosted topology: one `--role api` and one `--role worker` on one
 * PostgreSQL, `--profile testnet` on the chains of `parx chains --as testnet`, the receiver
 * authorizer configured (PARX_BATCH_RECEIVER_AUTHORIZER_KEY). A platform batch-settlement endpoint
 * is paid through the api replica by the official @x402 batch-settlement client (one deposit, then
 * vouchers); then, with no request to the api replica, the worker (which serves no /facilitator
 * route) claims and sweeps: the channel's totalClaimed on chain is what was charged, payTo holds
 * it, the seller's webhook fired once, and the worker's metrics count the claim. A testnet daemon
 * without an authorizer refuses to create a batch-settlement endpoint.
 *
 * Items 3 and 4 on the same set-up, with a second `--role api` replica (api2) on the same store: an
 * agent paying a hostile batch-settlement seller through both replicas in turn gets one channel and
 * one bounded deposit (the one-channel rule holds under the agent's row lock, not per process),
 * which the worker releases once its authorization expired unused; an agent paying a platform
 * batch-settlement endpoint through both replicas is claimed by the worker, makes no second deposit
 * when our record of the first is lost (the chain is read), and refunds the rest through api2, its
 * escrow then no longer counted; and a payment sent again to the other replica,
 * after or during the first, is answered what the first one was (the answer store is the
 * database), the upstream called once, the payer charged once. PostgreSQL only.
 */
const PRICE = 1000n // 0.001 USDC
const CALLS = 5n
let chains: StandaloneChains
let api: TestDaemon
let worker: TestDaemon
let bare: TestDaemon
let api2: TestDaemon
let api2Port: number
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))
const servers: Server[] = []
let upstream: { url: string; hits: number }
let hook: { url: string; got: string[] }
let orders: { url: string; calls: number }
/** An upstream whose answers wait until the test releases them: a payment still being served. */
let slow: { url: string; calls: number; held: Array<() => void> }
let refusing: HostileChannelSeller
let rotating: HostileChannelSeller
const CENT = 10_000n
/**
 * pay.validitySeconds of the replicas: short, so a refused deposit's authorization expires within
 * the test (near the setting's least, 10), yet 6 s past the facilitator's 6 s margin for the
 * deposit that is settled (signed and settled within one pay request, well under a second here).
 */
const VALIDITY = 12
const authorizerKey = generatePrivateKey()
const channels = parseAbi(['function channels(bytes32) view returns (uint128 balance, uint128 totalClaimed)'])

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })
}

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
  api2Port = await freePort()
  orders = { url: '', calls: 0 }
  orders.url = `${await serve(() => JSON.stringify({ order: ++orders.calls }))}/order`
  slow = { url: '', calls: 0, held: [] }
  const slowServer = createServer((req, res) => {
    const n = ++slow.calls
    req
      .resume()
      .on('end', () =>
        slow.held.push(
          () => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ slow: n })),
        ),
      )
  })
  await new Promise<void>((r) => slowServer.listen(0, '127.0.0.1', r))
  servers.push(slowServer)
  slow.url = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}/slow`
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  // Hostile batch-settlement sellers (item 3): one asks a 250 USDC minDeposit, one rotates its withdraw delay on every 402.
  const token = {
    address: chains.contracts['base-sepolia']!.USDC as Address,
    ...tokenSpec('base-sepolia', 'USDC')!.permitDomain!,
  }
  const hostile = (delays: number[], minDeposit?: bigint) =>
    hostileChannelSeller({
      network: 'eip155:84532',
      token,
      payTo: randomAddress(),
      receiverAuthorizer: randomAddress(),
      price: CENT,
      delays,
      ...(minDeposit !== undefined ? { minDeposit } : {}),
    })
  refusing = await hostile([900, 901, 902], 250_000_000n)
  rotating = await hostile([900, 901, 902, 30 * 86_400])
  const env = {
    ...chains.env,
    PARX_PLATFORM_WALLET_KEY: generatePrivateKey(),
    PARX_BATCH_RECEIVER_AUTHORIZER_KEY: authorizerKey,
    // api2's own paid URLs too: an agent of this platform pays one of its endpoints through it.
    PARX_EGRESS_ALLOW: [
      upstream.url,
      hook.url,
      orders.url,
      refusing.url,
      rotating.url,
      slow.url,
      `http://127.0.0.1:${api2Port}`,
    ]
      .map((u) => new URL(u).host)
      .join(','),
    PARX_PAY_VALIDITY_SECONDS: String(VALIDITY),
    // The worker decides a held spend this often once its payment expired (default every 5 s).
    PARX_PAY_HELD_RECHECK_EVERY_SECONDS: '0.5',
  }
  // The api replica first: it migrates the store. Only the worker's claim settings matter: it alone claims.
  api = await startTestDaemon({ env, flags: { store: { url }, role: 'api' } })
  worker = await startTestDaemon({
    env,
    flags: {
      store: { url },
      role: 'worker',
      sellerChannels: { claimEverySeconds: 0.2, claimMinUnclaimed: String(CALLS * PRICE), claimMaxAgeSeconds: 3600 },
    },
  })
  // A second api replica on the same store (items 3 and 4 go through both).
  api2 = await startTestDaemon({ env, flags: { store: { url }, role: 'api', port: api2Port } })
  // Another deployment on the same chains, with no receiver authorizer.
  bare = await startTestDaemon({ env: { ...chains.env, PARX_PLATFORM_WALLET_KEY: generatePrivateKey() } })
}, 240_000)
afterAll(async () => {
  slow?.held.splice(0).forEach((f) => f())
  await Promise.all([api?.close(), api2?.close(), worker?.close(), bare?.close()])
  await Promise.all([refusing?.close(), rotating?.close()])
  await chains?.stop()
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()))
  rmSync(chainsDir, { recursive: true, force: true })
})

/** A user of a hosted profile: a wallet sign-in on the dashboard makes it; the store makes the same user and key. */
const sellerOn = async (d: TestDaemon) =>
  createPlatformClient({
    url: d.urls.platform,
    userKey: (await d.services.platform.store.createUser({ name: 'seller' })).userKey,
  })
const faucet = async (to: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, {
    method: 'POST',
    body: JSON.stringify({ network: 'base-sepolia', to, token: 'USDC', amount }),
  })
  expect(res.status).toBe(200)
}

describe('batch-settlement channels on the hosted topology (api + worker, PostgreSQL, testnet)', () => {
  it('a deployment without a receiver authorizer refuses a batch-settlement endpoint, naming the setting', async () => {
    const seller = await sellerOn(bare)
    const body = {
      upstreamUrl: 'https://seller.example/report',
      price: '0.001',
      network: 'base-sepolia',
      token: 'USDC',
      payTo: randomAddress(),
    }
    // Through the SDK client: the error carries the code and the status.
    await expect(seller.createEndpoint({ body: { ...body, batchSettlement: true } })).rejects.toMatchObject({
      code: 'BATCH_AUTHORIZER_NOT_CONFIGURED',
      status: 409,
      message: expect.stringContaining('PARX_BATCH_RECEIVER_AUTHORIZER_KEY'),
    })
    // The same endpoint without channels is created.
    expect((await seller.createEndpoint({ body })).batchSettlement).toBe(false)
  })

  it('paid through the api replica by the official client; the worker alone claims and sweeps; one webhook; the claim counted', async () => {
    const seller = await sellerOn(api)
    const payTo = randomAddress()
    const e = await seller.createEndpoint({
      body: {
        upstreamUrl: upstream.url,
        price: '0.001',
        network: 'base-sepolia',
        token: 'USDC',
        payTo,
        webhookUrl: hook.url,
        batchSettlement: true,
      },
    })
    expect(e.url.startsWith(api.urls.platform)).toBe(true)
    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    const terms = decodeHeader(unpaid.headers.get('payment-required') ?? undefined) as {
      accepts: { scheme: string; extra: Record<string, unknown> }[]
    }
    expect(terms.accepts.find((a) => a.scheme === 'batch-settlement')!.extra.receiverAuthorizer).toBe(
      privateKeyToAccount(authorizerKey).address,
    )

    // Chain reads go straight to the chain (the worker's client), never through the api replica.
    const chain = worker.services.evm['base-sepolia']!
    const usdc = chains.contracts['base-sepolia']!.USDC as Address
    const balance = (owner: Address) =>
      chain.client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    const buyer = privateKeyToAccount(generatePrivateKey())
    await faucet(buyer.address, '1')
    const client = x402Client.fromConfig({
      schemes: [
        {
          network: 'eip155:*',
          client: new BatchClient(toClientEvmSigner(buyer, chain.client as never), { depositStrategy: () => '20000' }),
        },
      ],
      spendControls: {
        allowedAssets: [
          { network: chain.spec.caip2 as `${string}:${string}`, asset: usdc, maxAmountPerPayment: '10000' },
        ],
      },
    })
    const pay = wrapFetchWithPayment(fetch, client)
    let channelId: Hex | undefined
    for (let i = 0n; i < CALLS; i++) {
      const res = await pay(e.url)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ report: 'paid' })
      const settled = decodeHeader(res.headers.get('payment-response') ?? undefined) as
        | { extra?: { channelState?: { channelId?: Hex } } }
        | undefined
      channelId ??= settled?.extra?.channelState?.channelId
    }
    expect(upstream.hits).toBe(Number(CALLS))
    expect(channelId).toMatch(/^0x[0-9a-f]{64}$/)

    // From here on, nothing is asked of the api replica (it only delivers the queued webhook).
    await until(
      () => balance(payTo),
      (v) => v === CALLS * PRICE,
      'the sweep to payTo',
    )
    const [deposited, totalClaimed] = await chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: channels,
      functionName: 'channels',
      args: [channelId!],
    })
    expect([deposited, totalClaimed]).toEqual([20_000n, CALLS * PRICE])
    expect(await balance(buyer.address)).toBe(1_000_000n - 20_000n)
    const body = JSON.parse(
      (
        await until(
          async () => hook.got,
          (got) => got.length > 0,
          'the webhook',
        )
      )[0]!,
    )
    expect(body).toMatchObject({
      type: 'settlement.succeeded',
      data: {
        endpointId: e.id,
        scheme: 'batch-settlement',
        amount: '0.005',
        channels: 1,
        token: 'USDC',
        success: true,
        transaction: expect.stringMatching(/^0x/),
        claimTransaction: expect.stringMatching(/^0x/),
      },
    })
    // The worker's rounds after the sweep find nothing due: still one webhook, one claimed channel.
    const metrics = async () => (await worker.raw('/metrics', { headers: worker.operatorHeaders() })).body as string
    const idleAfterSweep = (await metrics()).match(/^parx_channel_claim_rounds_total\{outcome="idle"\} (\d+)$/m)?.[1]
    await until(
      metrics,
      (m) =>
        Number(m.match(/^parx_channel_claim_rounds_total\{outcome="idle"\} (\d+)$/m)?.[1] ?? 0) >=
        Number(idleAfterSweep ?? 0) + 3,
      'three more rounds',
    )
    const m = await metrics()
    expect(m).toMatch(/^parx_channel_claims_total\{outcome="claimed"\} 1$/m)
    expect(m).toMatch(/^parx_channel_claim_rounds_total\{outcome="ok"\} 1$/m)
    expect(m).not.toMatch(/^parx_channel_claim_rounds_total\{outcome="(failed|error)"\}/m)
    expect(hook.got).toHaveLength(1)
  })
})

describe('an agent paying a hostile batch-settlement seller through two api replicas (issue 39 item 3, PostgreSQL, testnet)', () => {
  let user: PlatformClient
  let userKey: string
  let held: { id: string; wallet: string } | undefined
  beforeAll(async () => {
    userKey = (await api.services.platform.store.createUser({ name: 'hostile-buyer' })).userKey
    user = createPlatformClient({ url: api.urls.platform, userKey })
  })
  /** An agent on base-sepolia holding 5 USDC from the chains' faucet, limited to 0.01 a payment and 1 a day. */
  const newAgent = async () => {
    const a = await user.createAgent({ body: { name: 'hostile-buyer', network: 'base-sepolia' } })
    await faucet(a.wallet, '5')
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.01', dailyUsd: '1' } })
    return a
  }
  // Each pay through the next replica: whatever one replica decided, the other must honour.
  const replicas = () => [api, api2]
  const payAs = (i: number, id: string, url: string) =>
    replicas()[i % 2]!.raw(`/api/agents/${id}/pay`, {
      method: 'POST',
      headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    })
  const usdcOf = (owner: Address) =>
    worker.services.evm['base-sepolia']!.client.readContract({
      address: chains.contracts['base-sepolia']!.USDC as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })

  it('a minDeposit of 250 USDC valid a year is refused before anything is signed, by either replica', async () => {
    const a = await newAgent()
    for (let i = 0; i < 3; i++) {
      const r = await payAs(i, a.id, `${refusing.url}/report`)
      expect(r.status, JSON.stringify(r.body)).toBe(502)
      expect(r.body).toMatchObject({
        code: 'CHANNEL_TERMS_REFUSED',
        error: expect.stringContaining('minDeposit of 250 USDC, above the platform'),
      })
    }
    expect(refusing.kept).toEqual([])
    expect((await user.listChannels({ params: { id: a.id } })).channels).toEqual([])
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })

  it('a withdraw delay rotating on every 402, paid through api then api2 in turn: one channel, one deposit within the limits, then CHANNEL_TERMS_CHANGED; a delay above a day refused', async () => {
    const a = (held = await newAgent())
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await payAs(i, a.id, `${rotating.url}/report`))
    expect(
      answers.map((r) => r.body.code),
      JSON.stringify(answers.map((r) => r.body)),
    ).toEqual(['PAYMENT_REFUSED', 'CHANNEL_TERMS_CHANGED', 'CHANNEL_TERMS_CHANGED', 'CHANNEL_TERMS_REFUSED'])
    expect(answers[1]!.status).toBe(409)
    expect(answers[1]!.body).toMatchObject({
      charged: false,
      transaction: null,
      channelId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    expect(answers[3]!.body.error).toContain('withdrawDelay of 2592000 s, above the platform')
    // One deposit signed (through api): 10x the price, valid pay.validitySeconds at most though the seller asked a year, on the first delay.
    const kept = rotating.kept.filter(
      (k) => String(k.payload.payload.channelConfig?.payer).toLowerCase() === a.wallet.toLowerCase(),
    )
    expect(rotating.kept).toHaveLength(1)
    expect(kept).toHaveLength(1)
    const k = kept[0]!
    expect(k.payload.payload).toMatchObject({
      type: 'deposit',
      deposit: { amount: '100000' },
      channelConfig: { withdrawDelay: 900 },
    })
    expect(Number(k.payload.payload.deposit.authorization.erc3009Authorization.validBefore) - k.at).toBeLessThanOrEqual(
      VALIDITY + 1,
    )
    const channels = (await user.listChannels({ params: { id: a.id } })).channels
    expect(channels).toHaveLength(1)
    expect(channels[0]).toMatchObject({ id: answers[1]!.body.channelId, pendingDeposit: '0.1' })
    // The escrow (not made: the seller refused; its authorization still valid) counts, within the daily limit of 1, on either replica.
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
    const onApi2 = createPlatformClient({ url: api2.urls.platform, userKey })
    expect((await onApi2.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
    expect(await usdcOf(a.wallet as Address)).toBe(5_000_000n)
    // Two days on (its rows dated back), the escrow still counts: it is not back in the wallet.
    await api.services.store.db
      .updateTable('platform_spends')
      .set({ created_at: Date.now() - 2 * 86_400_000 })
      .where('agent_id', '=', a.id)
      .execute()
    expect((await onApi2.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
  })

  it('the refused deposit expires unused: the worker releases it (no api replica runs that duty), the escrow stops counting, and the seller gets a new deposit on the same channel, not a second one', async () => {
    const a = held!
    const chain = worker.services.evm['base-sepolia']!
    // "Expired" is the chain head's word: a block is mined each poll, as a live chain would have one.
    const spent = await until(
      async () => {
        await chain.client.request({ method: 'evm_mine' as never, params: [] as never })
        return (await user.getLimits({ params: { id: a.id } })).spentTodayUsd
      },
      (v) => v === '0',
      "the worker's release of the expired deposit",
      90_000,
    )
    expect(spent).toBe('0')
    const rows = await api.services.store.db
      .selectFrom('platform_spends')
      .select(['state', 'reason', 'channel_role' as never])
      .where('agent_id', '=', a.id)
      .where('channel_role' as never, '=', 'deposit' as never)
      .execute()
    expect(rows).toEqual([
      {
        state: 'released',
        channel_role: 'deposit',
        reason: expect.stringMatching(/^the signed payment expired at .* unused$/),
      },
    ])
    expect(await usdcOf(a.wallet as Address)).toBe(5_000_000n)
    // The seller's next 402 names the first delay again: that channel, no longer holding anything, takes one new deposit (refused again, held again).
    const again = await payAs(1, a.id, `${rotating.url}/report`)
    expect(again.body.code, JSON.stringify(again.body)).toBe('PAYMENT_REFUSED')
    const kept = rotating.kept.filter(
      (k) => String(k.payload.payload.channelConfig?.payer).toLowerCase() === a.wallet.toLowerCase(),
    )
    expect(kept.map((k) => k.payload.payload.channelConfig.withdrawDelay)).toEqual([900, 900])
    const channels = (await user.listChannels({ params: { id: a.id } })).channels
    expect(channels).toHaveLength(1)
    expect(channels[0]).toMatchObject({ pendingDeposit: '0.1', deposited: '0' })
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
  }, 150_000)
})

describe('a retried payment through the other api replica (issue 39 item 4, PostgreSQL, testnet)', () => {
  let user: PlatformClient
  const payer = privateKeyToAccount(generatePrivateKey())
  const PAID = 10_000n // 0.01 USDC
  beforeAll(async () => {
    user = await sellerOn(api)
    await faucet(payer.address, '1')
  })
  const usdcOf = (owner: Address) =>
    worker.services.evm['base-sepolia']!.client.readContract({
      address: chains.contracts['base-sepolia']!.USDC as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })
  /** The endpoint's paid URL on another replica: the same path, the other listener (one public origin behind a balancer). */
  const on = (d: TestDaemon, url: string) => `${d.urls.platform}${new URL(url).pathname}`

  it('x402: the same PAYMENT-SIGNATURE through api then api2 gets the same body twice, the upstream called once, charged once; another payload under the id refused', async () => {
    const payee = randomAddress()
    const e = await user.createEndpoint({
      body: { upstreamUrl: orders.url, price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: payee },
    })
    const chain = worker.services.evm['base-sepolia']!
    const client = x402Client.fromConfig({
      schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, chain.client as never)) }],
      spendControls: false,
    })
    const id = `pay_hosted_retry_${Date.now()}`
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      if (paymentRequired.extensions)
        appendPaymentIdentifierToExtensions(paymentRequired.extensions as Record<string, unknown>, id)
    })
    const rec = recordingFetch()
    const buy = wrapFetchWithPayment(rec.f, client)
    const before = { payer: await usdcOf(payer.address), calls: orders.calls }
    const first = await buy(on(api, e.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(first.status).toBe(200)
    const body = await first.json()
    expect(body).toEqual({ order: before.calls + 1 })
    expect(rec.sent).toHaveLength(1)
    // The buyer's connection broke; it sends the same payment again and the balancer picks the other replica.
    const again = await fetch(on(api2, e.url), {
      method: 'POST',
      headers: { 'payment-signature': rec.sent[0]!, 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(body)
    expect(settlementOf(again)).toMatchObject({ success: true, transaction: settlementOf(first)!.transaction })
    expect(orders.calls).toBe(before.calls + 1)
    expect(await usdcOf(payee)).toBe(PAID)
    expect(before.payer - (await usdcOf(payer.address))).toBe(PAID)

    // A new purchase signed under the same id is another payload: refused by api2, nothing run, nothing moves.
    const other = await wrapFetchWithPayment(fetch, client)(on(api2, e.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(other.status).toBe(402)
    expect(decodeHeader<{ error: string }>(other.headers.get('payment-required'))!.error).toBe(
      'payment_identifier_mismatch',
    )
    expect(orders.calls).toBe(before.calls + 1)
    expect(await usdcOf(payee)).toBe(PAID)
  })

  it('x402: a repeat through api2 while api still serves the first waits for its answer: both get the one order, the upstream called once, charged once', async () => {
    const payee = randomAddress()
    const e = await user.createEndpoint({
      body: { upstreamUrl: slow.url, price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: payee },
    })
    const chain = worker.services.evm['base-sepolia']!
    const client = x402Client.fromConfig({
      schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, chain.client as never)) }],
      spendControls: false,
    })
    const id = `pay_hosted_inflight_${Date.now()}`
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      if (paymentRequired.extensions)
        appendPaymentIdentifierToExtensions(paymentRequired.extensions as Record<string, unknown>, id)
    })
    const rec = recordingFetch()
    const before = { payer: await usdcOf(payer.address), calls: slow.calls }
    const first = wrapFetchWithPayment(rec.f, client)(on(api, e.url), { method: 'POST', body: '{"item":3}' })
    await until(
      async () => slow.held.length,
      (n) => n === 1,
      'the first request at the upstream',
    )
    const repeat = fetch(on(api2, e.url), {
      method: 'POST',
      headers: { 'payment-signature': rec.sent[0]! },
      body: '{"item":3}',
    })
    // The repeat is held by api2, neither served nor refused, while api's upstream has not answered.
    await new Promise((r) => setTimeout(r, 500))
    expect(slow.calls).toBe(before.calls + 1)
    slow.held.splice(0).forEach((f) => f())
    const [a, b] = await Promise.all([first, repeat])
    expect([a.status, b.status]).toEqual([200, 200])
    const [ja, jb] = [await a.json(), await b.json()]
    expect(ja).toEqual({ slow: before.calls + 1 })
    expect(jb).toEqual(ja)
    expect(settlementOf(b)).toMatchObject({ success: true, transaction: settlementOf(a)!.transaction })
    expect(slow.calls).toBe(before.calls + 1)
    expect(await usdcOf(payee)).toBe(PAID)
    expect(before.payer - (await usdcOf(payer.address))).toBe(PAID)
  })

  it('MPP: the same credential through api then api2 gets the same body twice, the upstream called once, charged once', async () => {
    const payee = randomAddress()
    const e = await user.createEndpoint({
      body: { upstreamUrl: orders.url, price: '0.01', network: 'base-sepolia', token: 'USDC', payTo: payee },
    })
    const [challenge] = Challenge.fromResponseList(await fetch(on(api, e.url), { method: 'POST' }))
    const credential = await evm
      .charge({ account: payer, authorization: tokenSpec('base-sepolia', 'USDC')!.permitDomain! })
      .createCredential({ challenge: challenge as never, context: {} })
    const before = { payer: await usdcOf(payer.address), calls: orders.calls }
    const send = (d: TestDaemon) =>
      fetch(on(d, e.url), {
        method: 'POST',
        headers: { authorization: credential, 'content-type': 'application/json' },
        body: '{"item":2}',
      })
    const first = await send(api)
    expect(first.status).toBe(200)
    const body = await first.json()
    expect(body).toEqual({ order: before.calls + 1 })
    const again = await send(api2)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(body)
    expect(again.headers.get('payment-receipt')).toBe(first.headers.get('payment-receipt'))
    expect(orders.calls).toBe(before.calls + 1)
    expect(await usdcOf(payee)).toBe(PAID)
    expect(before.payer - (await usdcOf(payer.address))).toBe(PAID)
  })
})

describe('an agent paying a platform batch-settlement endpoint on the role split (issue 39 items 1 and 3, PostgreSQL, testnet)', () => {
  it('one deposit through api, vouchers through both replicas; the worker claims and sweeps meanwhile; a lost deposit record gets no second deposit (the chain read); the refund through api2 returns the unspent deposit exactly and the escrow stops counting', async () => {
    const { userKey } = await api.services.platform.store.createUser({ name: 'both-sides' })
    const user = createPlatformClient({ url: api.urls.platform, userKey })
    const onApi2 = createPlatformClient({ url: api2.urls.platform, userKey })
    const buyer = await user.createAgent({ body: { name: 'channel-buyer', network: 'base-sepolia' } })
    await faucet(buyer.wallet, '5')
    await user.setLimits({ params: { id: buyer.id }, body: { perPaymentUsd: '0.01', dailyUsd: '1' } })
    // payTo one of the user's agents: the platform holds the receiver, so it may ask our authorizer's refund.
    const receiver = await user.createAgent({ body: { name: 'channel-seller', network: 'base-sepolia' } })
    const e = await user.createEndpoint({
      body: {
        upstreamUrl: orders.url,
        price: '0.001',
        network: 'base-sepolia',
        token: 'USDC',
        payTo: receiver.id,
        batchSettlement: true,
      },
    })
    const url = `${api2.urls.platform}${new URL(e.url).pathname}`
    const usdcOf = (owner: string) =>
      worker.services.evm['base-sepolia']!.client.readContract({
        address: chains.contracts['base-sepolia']!.USDC as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner as Address],
      })
    const pay = (d: TestDaemon) =>
      d.raw(`/api/agents/${buyer.id}/pay`, {
        method: 'POST',
        headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      })

    let channelId = ''
    for (let i = 1n; i <= CALLS; i++) {
      const r = await pay(i % 2n ? api : api2)
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.receipt).toMatchObject({ amount: '0.001', channel: { cumulative: `0.00${i}` } })
      if (i === 1n) expect(r.body.receipt.channel.deposited).toBe('0.01')
      else expect(r.body.receipt).toMatchObject({ transaction: null, channel: { id: channelId } })
      channelId = r.body.receipt.channel.id
    }
    expect(await usdcOf(buyer.wallet)).toBe(5_000_000n - 10n * PRICE)
    expect((await onApi2.getLimits({ params: { id: buyer.id } })).spentTodayUsd).toBe('0.01')

    // What was charged reaches the threshold: the worker claims and sweeps it to the receiver agent's wallet, asked by nobody.
    await until(
      () => usdcOf(receiver.wallet),
      (v) => v === CALLS * PRICE,
      'the sweep to the receiver agent',
    )
    const [, totalClaimed] = await worker.services.evm['base-sepolia']!.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: channels,
      functionName: 'channels',
      args: [channelId as Hex],
    })
    expect(totalClaimed).toBe(CALLS * PRICE)

    // Our record loses the deposit (as a lost write would): the replica reads the channel on chain before depositing, so a voucher alone pays.
    await api.services.store.db
      .updateTable('platform_pay_channels')
      .set({ deposited: '0' })
      .where('id', '=', channelId)
      .execute()
    const sixth = await pay(api2)
    expect(sixth.status, JSON.stringify(sixth.body)).toBe(200)
    expect(sixth.body.receipt).toMatchObject({ transaction: null, channel: { id: channelId, cumulative: '0.006' } })
    expect(sixth.body.receipt.channel.deposited).toBeUndefined()
    expect(await usdcOf(buyer.wallet)).toBe(5_000_000n - 10n * PRICE)

    const refunded = await onApi2.refundChannel({ params: { id: buyer.id, channelId } })
    expect(refunded).toMatchObject({
      refunded: '0.004',
      token: 'USDC',
      channel: { unspent: '0', refunded: '0.004', charged: '0.006', deposited: '0.01' },
    })
    expect(await usdcOf(buyer.wallet)).toBe(5_000_000n - (CALLS + 1n) * PRICE)
    // Back in the wallet, the escrow no longer counts; the vouchers (what was charged) do.
    expect((await user.getLimits({ params: { id: buyer.id } })).spentTodayUsd).toBe('0.006')
  })
})
