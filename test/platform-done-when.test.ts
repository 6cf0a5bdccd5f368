import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import express from 'express'
import { evm, Mppx } from 'mppx/server'
import { type Address, createWalletClient, erc20Abi, type Hex, http, parseAbi, parseEther, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, randomAddress } from './helpers/x402.js'
import { listen, officialBuyer, parxBuyer } from './helpers/x402-buyers.js'

/**
 * Issue 9's "done when", in one run on the local profile: a user, agents on local-base and
 * local-radius (the local-base wallet holds 0 ETH throughout), faucet, balance, send (a sponsored
 * user operation through alto; a direct transfer), swap USDC->PUSD->XUSD->PUSD, paying a platform
 * endpoint (x402 v2 and v1 with our client, the official @x402/fetch from a wallet with no gas), a
 * seller behind the official @x402/express with our facilitator, stock mppx servers (one settling
 * through our facilitator), an over-limit payment refused with nothing moved, and a seller that
 * fails after payment leaving the agent uncharged. Every balance is checked exactly.
 */
let d: TestDaemon
let user: PlatformClient
let sellerUser: PlatformClient
const servers: { close(): Promise<void> }[] = []
let base: { id: string; wallet: Address }
let radius: { id: string; wallet: Address }
let agent: PlatformClient
let agentKey: string
let radiusAgent: PlatformClient
let payee: { id: string; wallet: Address }

const dec = (symbol: string, network = 'local-base') => BigInt(d.services.evm[network]!.tokens[symbol]!.decimals)
const units = (symbol: string, n: string, network = 'local-base') => {
  const [w, f = ''] = n.split('.')
  return BigInt(w! + f.padEnd(Number(dec(symbol, network)), '0'))
}
const bal = (owner: Address, symbol: string, network = 'local-base') => {
  const chain = d.services.evm[network]!
  return chain.client.readContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}
const eth = (a: Address) => d.services.base.client.getBalance({ address: a })

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  user = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'done-when' } })).userKey,
  })
  sellerUser = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
  })
}, 120_000)
afterAll(async () => {
  for (const s of servers) await s.close()
  await d?.close()
})

describe('issue 9: done when', () => {
  it('user and agents on local-base and local-radius; faucet; balance', async () => {
    base = await user.createAgent({ body: { name: 'base', network: 'local-base' } })
    radius = await user.createAgent({ body: { name: 'radius', network: 'local-radius' } })
    agentKey = (await user.createAgentKey({ params: { id: base.id }, body: {} })).agentKey
    agent = createPlatformClient({ url: d.urls.platform, agentKey })
    radiusAgent = createPlatformClient({
      url: d.urls.platform,
      agentKey: (await user.createAgentKey({ params: { id: radius.id }, body: {} })).agentKey,
    })
    for (const [token, amount] of [
      ['USDC', '20'],
      ['PUSD', '5'],
    ] as const)
      await d.call('/api/local/faucet', { body: { network: 'local-base', to: base.wallet, token, amount } })
    await d.call('/api/local/faucet', {
      body: { network: 'local-radius', to: radius.wallet, token: 'PUSD', amount: '10' },
    })
    const b = await agent.balance({ params: { id: base.id } })
    expect(b.tokens.map((t) => [t.symbol, t.amount])).toEqual([
      ['USDC', '20'],
      ['PUSD', '5'],
      ['XUSD', '0'],
    ])
    expect(b.native.raw).toBe('0')
    const r = await radiusAgent.balance({ params: { id: radius.id } })
    expect(r.tokens.map((t) => [t.symbol, t.amount])).toEqual([['PUSD', '10']])
  })

  it('send: a sponsored user operation on local-base, a direct transfer on local-radius; balances exact', async () => {
    const to = randomAddress()
    const s = await agent.send({ params: { id: base.id }, body: { to, amount: '1', token: 'PUSD' } })
    expect(s).toMatchObject({ method: 'userOperation', status: 'confirmed' })
    expect(s.userOperation).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await bal(to, 'PUSD')).toBe(units('PUSD', '1'))
    expect(await bal(base.wallet, 'PUSD')).toBe(units('PUSD', '4'))
    const rt = randomAddress()
    const r = await radiusAgent.send({ params: { id: radius.id }, body: { to: rt, amount: '1.5' } })
    expect(r).toMatchObject({ method: 'transfer', status: 'confirmed', userOperation: null })
    expect(await bal(rt, 'PUSD', 'local-radius')).toBe(units('PUSD', '1.5', 'local-radius'))
    expect(await bal(radius.wallet, 'PUSD', 'local-radius')).toBe(units('PUSD', '8.5', 'local-radius'))
    expect(await eth(base.wallet)).toBe(0n)
  }, 120_000)

  it('swap USDC->PUSD->XUSD->PUSD, exact', async () => {
    await agent.swap({ params: { id: base.id }, body: { from: 'USDC', to: 'PUSD', amount: '4' } })
    await agent.swap({ params: { id: base.id }, body: { from: 'PUSD', to: 'XUSD', amount: '3' } })
    await agent.swap({ params: { id: base.id }, body: { from: 'XUSD', to: 'PUSD', amount: '2' } })
    expect(await bal(base.wallet, 'USDC')).toBe(units('USDC', '16'))
    expect(await bal(base.wallet, 'PUSD')).toBe(units('PUSD', '7'))
    expect(await bal(base.wallet, 'XUSD')).toBe(units('XUSD', '1'))
    expect(await eth(base.wallet)).toBe(0n)
  }, 60_000)

  it('a platform endpoint (PUSD): the agent pays (x402 v2); our client pays v2 and v1; the official @x402/fetch pays from a wallet with no gas', async () => {
    payee = await sellerUser.createAgent({ body: { name: 'payee', network: 'local-base' } })
    const app = express()
    app.get('/data', (_req, res) => void res.json({ data: 'the data' }))
    app.get('/fail', (_req, res) => void res.status(500).json({ error: 'upstream broke' }))
    const upstream = await listen(app)
    servers.push(upstream)
    const e = await sellerUser.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee.id,
      },
    })
    const price = units('PUSD', '0.01')

    const paid = await agent.pay({ params: { id: base.id }, body: { url: e.url } })
    if (paid.dryRun) throw new Error('not a dry run')
    expect([paid.status, JSON.parse(paid.body).data, paid.receipt?.protocol]).toEqual([200, 'the data', 'x402-v2'])
    expect(await bal(payee.wallet, 'PUSD')).toBe(price)
    expect(await bal(base.wallet, 'PUSD')).toBe(units('PUSD', '7') - price)

    const wallet = await evmPayer(d, ['PUSD'], '1')
    for (const version of [2, 1] as const) {
      const res = await parxBuyer(d, { evm: wallet }, version)(e.url)
      expect([res.status, (await res.json()).data]).toEqual([200, 'the data'])
    }
    const official = await evmPayer(d, ['PUSD'], '1')
    const res = await officialBuyer(d, official)(e.url)
    expect([res.status, (await res.json()).data]).toEqual([200, 'the data'])
    expect(settlementOf(res)).toMatchObject({ success: true, payer: official.address })
    expect(await bal(payee.wallet, 'PUSD')).toBe(4n * price)
    expect(await bal(wallet.address, 'PUSD')).toBe(units('PUSD', '1') - 2n * price)
    expect(await bal(official.address, 'PUSD')).toBe(units('PUSD', '1') - price)
    for (const a of [wallet.address, official.address, base.wallet]) expect(await eth(a)).toBe(0n)

    // The upstream fails after the payment was offered: never charged.
    const broken = await sellerUser.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/fail`,
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee.id,
      },
    })
    const failed = await d.raw(`/api/agents/${base.id}/pay`, {
      method: 'POST',
      headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: broken.url }),
    })
    expect([failed.status, failed.body.code, failed.body.charged]).toEqual([502, 'SELLER_FAILED', false])
    expect(await bal(base.wallet, 'PUSD')).toBe(units('PUSD', '7') - price)
    expect(await bal(payee.wallet, 'PUSD')).toBe(4n * price)
  }, 60_000)

  it('a seller behind the official @x402/express with our facilitator; stock mppx servers (our facilitator, and self-settling)', async () => {
    const chain = d.services.base
    const usdc = chain.tokens.USDC!
    const officialTo = randomAddress()
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
      chain.spec.caip2 as `${string}:${string}`,
      new ExactEvmScheme(),
    )
    const app = express()
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: {
              scheme: 'exact',
              network: chain.spec.caip2 as `${string}:${string}`,
              payTo: officialTo,
              price: {
                amount: '20000',
                asset: usdc.address,
                extra: { name: usdc.permitDomain!.name, version: usdc.permitDomain!.version },
              },
            },
          },
        },
        server,
      ),
    )
    app.get('/weather', (_req, res) => void res.json({ weather: 'sunny' }))
    const officialSeller = await listen(app)
    servers.push(officialSeller)
    const w = await agent.pay({ params: { id: base.id }, body: { url: `${officialSeller.url}/weather` } })
    if (w.dryRun) throw new Error('not a dry run')
    expect([w.status, JSON.parse(w.body).weather, w.receipt?.amount, w.receipt?.token]).toEqual([
      200,
      'sunny',
      '0.02',
      'USDC',
    ])
    expect(await bal(officialTo, 'USDC')).toBe(20_000n)

    const facTo = randomAddress()
    const selfTo = randomAddress()
    const common = { currency: usdc.address, chainId: chain.chainId, decimals: 6, authorization: usdc.permitDomain! }
    const relayer = privateKeyToAccount(generatePrivateKey())
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [relayer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const relayerWallet = createWalletClient({
      account: relayer,
      chain: chain.client.chain,
      transport: http(chain.rpcUrl),
    })
    const viaUs = Mppx.create({
      secretKey: 'c'.repeat(64),
      realm: 'mpp-fac',
      methods: [evm.charge({ ...common, recipient: facTo, x402: { facilitator: d.urls.facilitator } })],
    })
    const selfSettling = Mppx.create({
      secretKey: 'd'.repeat(64),
      realm: 'mpp-self',
      methods: [
        evm.charge({
          ...common,
          recipient: selfTo,
          async settle({ payload }) {
            const { v, r, s } = parseSignature(payload.signature as Hex)
            const hash = await relayerWallet.writeContract({
              address: usdc.address,
              chain: chain.client.chain,
              functionName: 'transferWithAuthorization',
              abi: parseAbi([
                'function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
              ]),
              args: [
                payload.from as Address,
                payload.to as Address,
                BigInt(payload.value),
                BigInt(payload.validAfter),
                BigInt(payload.validBefore),
                payload.nonce as Hex,
                Number(v),
                r,
                s,
              ],
            })
            await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
            return { reference: hash }
          },
        }),
      ],
    })
    const mppApp = express()
    mppApp.get('/fac', async (req, res) => {
      const r = await Mppx.toNodeListener(viaUs.charge({ amount: '0.03' }))(req, res)
      if (r.status !== 402) res.json({ mpp: 'via our facilitator' })
    })
    mppApp.get('/self', async (req, res) => {
      const r = await Mppx.toNodeListener(selfSettling.charge({ amount: '0.04' }))(req, res)
      if (r.status !== 402) res.json({ mpp: 'self-settled' })
    })
    const mppSeller = await listen(mppApp)
    servers.push(mppSeller)
    const usdcBefore = await bal(base.wallet, 'USDC')
    for (const [path, to, amount] of [
      ['fac', facTo, 30_000n],
      ['self', selfTo, 40_000n],
    ] as const) {
      const m = await agent.pay({ params: { id: base.id }, body: { url: `${mppSeller.url}/${path}`, protocol: 'mpp' } })
      if (m.dryRun) throw new Error('not a dry run')
      expect([m.status, m.receipt?.protocol]).toEqual([200, 'mpp'])
      expect(await bal(to, 'USDC')).toBe(amount)
    }
    expect(await bal(base.wallet, 'USDC')).toBe(usdcBefore - 70_000n)
    expect(await eth(base.wallet)).toBe(0n)
  }, 60_000)

  it("an over-limit payment is refused before signing, nothing moved; the day's spending adds up", async () => {
    const limits = await user.getLimits({ params: { id: base.id } })
    // send 1 + swaps 4 + 3 + 2 + pay 0.01 + 0.02 + 0.03 + 0.04, + 0.01 for the payment whose seller
    // failed: nothing was charged, but its signed permit stays usable until it expires, so its
    // reservation is held until then (docs/hosting.md "Signed payments a seller cannot stretch").
    expect(limits.spentTodayUsd).toBe('10.11')
    await user.setLimits({ params: { id: base.id }, body: { dailyUsd: '10.115' } })
    const before = [await bal(base.wallet, 'USDC'), await bal(payee.wallet, 'PUSD')]
    const endpoints = (await sellerUser.listEndpoints({})).endpoints
    const over = await d.raw(`/api/agents/${base.id}/pay`, {
      method: 'POST',
      headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: endpoints[0]!.url }),
    })
    expect([over.status, over.body]).toMatchObject([
      403,
      { code: 'LIMIT_EXCEEDED', limit: 'day', amountUsd: '0.01', remainingUsd: '0.005' },
    ])
    expect([await bal(base.wallet, 'USDC'), await bal(payee.wallet, 'PUSD')]).toEqual(before)
    expect(await eth(base.wallet)).toBe(0n)
  })
})
