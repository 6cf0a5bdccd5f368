import express from 'express'
import { Challenge, Receipt } from 'mppx'
import { evm, Mppx } from 'mppx/client'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * A USDC seller endpoint offers x402 (v2, v1) and MPP (`WWW-Authenticate: Payment`, evm charge)
 * and settles either through our facilitator. Paid by a platform agent over MPP and x402, and by a
 * stock mppx client; an upstream that fails after an MPP credential is never charged; a credential
 * for one endpoint is refused by another.
 */
let d: TestDaemon
let upstream: { url: string; close(): Promise<void> }
let seller: PlatformClient
let buyerUser: PlatformClient
let payee: { id: string; wallet: Address }
let calls = 0

beforeAll(async () => {
  d = await startTestDaemon()
  const app = express()
  app.get('/data', (_req, res) => void res.json({ data: 'upstream', n: ++calls }))
  app.get('/fail', (_req, res) => void res.status(500).json({ error: 'upstream broke' }))
  upstream = await listen(app)
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  seller = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
  })
  buyerUser = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'buyer' } })).userKey,
  })
  payee = await seller.createAgent({ body: { name: 'payee', network: 'local-base' } })
}, 120_000)
afterAll(async () => {
  await upstream?.close()
  await d?.close()
})

const usdc = (owner: Address) => {
  const chain = d.services.base
  return chain.client.readContract({
    address: chain.tokens.USDC!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}
async function buyerAgent() {
  const b = await buyerUser.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: b.wallet, token: 'USDC', amount: '1' } })
  return b
}

describe('seller endpoints over MPP', () => {
  it('a USDC endpoint answers 402 with x402 v2, v1 and an MPP evm charge challenge; paid by an agent over MPP and over x402', async () => {
    const e = await seller.createEndpoint({
      body: {
        name: 'usdc data',
        upstreamUrl: `${upstream.url}/data`,
        price: '0.03',
        network: 'local-base',
        token: 'USDC',
        payTo: payee.id,
      },
    })
    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    expect(
      decodeHeader<{ accepts: { amount: string }[] }>(unpaid.headers.get('payment-required'))!.accepts[0]!.amount,
    ).toBe('30000')
    expect((await unpaid.json()).x402Version).toBe(1)
    const [challenge] = Challenge.fromResponseList(unpaid)
    expect(challenge).toMatchObject({ method: 'evm', intent: 'charge', realm: `parx-paid-${e.id}` })
    expect(challenge!.request).toMatchObject({
      amount: '30000',
      recipient: payee.wallet,
      methodDetails: { chainId: d.services.base.chainId },
    })

    const b = await buyerAgent()
    const before = calls
    const m = await buyerUser.pay({ params: { id: b.id }, body: { url: e.url, protocol: 'mpp' } })
    if (m.dryRun) throw new Error('not a dry run')
    expect([m.status, JSON.parse(m.body).data]).toEqual([200, 'upstream'])
    expect(m.receipt).toMatchObject({ protocol: 'mpp', amount: '0.03', token: 'USDC', payTo: payee.wallet })
    expect(Receipt.deserialize(m.headers['payment-receipt']!)).toMatchObject({
      method: 'evm',
      status: 'success',
      reference: m.receipt!.transaction,
    })
    const x = await buyerUser.pay({ params: { id: b.id }, body: { url: e.url } })
    if (x.dryRun) throw new Error('not a dry run')
    expect(x.receipt).toMatchObject({ protocol: 'x402-v2', amount: '0.03', token: 'USDC' })
    expect(calls).toBe(before + 2)
    expect(await usdc(payee.wallet)).toBe(60_000n)
    expect(await usdc(b.wallet)).toBe(1_000_000n - 60_000n)
  }, 60_000)

  it('a stock mppx client pays the endpoint (credential validated, upstream called, then settled through our facilitator)', async () => {
    const e = await seller.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '0.01',
        network: 'local-base',
        token: 'USDC',
        payTo: payee.id,
      },
    })
    const payer = await evmPayer(d, ['USDC'], '1')
    const mppx = Mppx.create({
      polyfill: false,
      methods: [evm.charge({ account: payer, authorization: d.services.base.tokens.USDC!.permitDomain! })],
    })
    const before = await usdc(payee.wallet)
    const res = await mppx.fetch(e.url)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('private')
    expect((await res.json()).data).toBe('upstream')
    const receipt = Receipt.fromResponse(res)
    expect(receipt).toMatchObject({ method: 'evm', status: 'success' })
    expect(
      (await d.services.base.client.getTransactionReceipt({ hash: receipt.reference as `0x${string}` })).status,
    ).toBe('success')
    expect(await usdc(payee.wallet)).toBe(before + 10_000n)
  }, 60_000)

  it('an upstream that fails after an MPP credential is not charged; a credential for one endpoint is refused by another', async () => {
    const broken = await seller.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/fail`,
        price: '0.01',
        network: 'local-base',
        token: 'USDC',
        payTo: payee.id,
      },
    })
    const b = await buyerAgent()
    const before = await usdc(payee.wallet)
    const r = await buyerUser
      .pay({ params: { id: b.id }, body: { url: broken.url, protocol: 'mpp' } })
      .catch((err: { body?: unknown }) => err.body ?? err)
    expect(r).toMatchObject({ code: 'SELLER_FAILED', charged: false, transaction: null })
    expect(await usdc(b.wallet)).toBe(1_000_000n)
    expect(await usdc(payee.wallet)).toBe(before)

    // A credential signed for a cheap endpoint, presented to a dearer one: refused, nothing moves.
    const cheap = await seller.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '0.01',
        network: 'local-base',
        token: 'USDC',
        payTo: payee.id,
      },
    })
    const dear = await seller.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '0.05',
        network: 'local-base',
        token: 'USDC',
        payTo: payee.id,
      },
    })
    const payer = await evmPayer(d, ['USDC'], '1')
    const [challenge] = Challenge.fromResponseList(await fetch(cheap.url))
    const credential = await evm
      .charge({ account: payer, authorization: d.services.base.tokens.USDC!.permitDomain! })
      .createCredential({ challenge: challenge as never, context: {} })
    const replay = await fetch(dear.url, { headers: { authorization: credential } })
    expect(replay.status).toBe(402)
    expect((await replay.json()).detail).toMatch(/refused/)
    expect(replay.headers.get('www-authenticate')).toMatch(/^Payment /)
    expect(await usdc(payer.address)).toBe(1_000_000n)
    // The same credential where it belongs is accepted.
    const ok = await fetch(cheap.url, { headers: { authorization: credential } })
    expect(ok.status).toBe(200)
    expect(await usdc(payer.address)).toBe(990_000n)
  }, 60_000)

  it('a PUSD endpoint (no EIP-3009) offers x402 only: no MPP challenge', async () => {
    const e = await seller.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee.id,
      },
    })
    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers.get('payment-required')).toBeTruthy()
    expect(unpaid.headers.get('www-authenticate')).toBeNull()
  })
})
