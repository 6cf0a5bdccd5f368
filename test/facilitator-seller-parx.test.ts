import { Keypair, PublicKey } from '@solana/web3.js'
import express from 'express'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { signPayment } from '../src/sdk/x402/client/payer.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { decodeHeader, encodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, localSolana, randomAddress, solanaPayer } from './helpers/x402.js'
import { listen, officialBuyer, parxBuyer } from './helpers/x402-buyers.js'

let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
let solPayer: Keypair
const payTo = randomAddress()
const solPayTo = Keypair.generate().publicKey
const USDC_PRICE = 10_000n // 0.01 USDC
const PUSD_PRICE = 10n ** 16n // 0.01 PUSD (18 decimals)

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC', 'PUSD'], '10')
  solPayer = await solanaPayer(d, 'USDC', '10')
  await localSolana(d).approve(solPayer, 'USDC', 1_000_000n)
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /usdc': {
          prices: [{ network: 'local-base', asset: 'USDC', amount: String(USDC_PRICE), payTo, method: 'eip3009' }],
          description: 'a report',
        },
        'GET /pusd': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(PUSD_PRICE), payTo }] },
        'GET /sol': {
          prices: [{ network: 'local-solana', asset: 'USDC', amount: String(USDC_PRICE), payTo: solPayTo.toBase58() }],
        },
        'GET /broken': {
          prices: [{ network: 'local-base', asset: 'USDC', amount: String(USDC_PRICE), payTo, method: 'eip3009' }],
        },
      },
    }),
  )
  for (const path of ['/usdc', '/pusd', '/sol']) app.get(path, (_req, res) => void res.json({ paid: path }))
  app.get('/broken', (_req, res) => void res.status(500).json({ error: 'the handler failed' }))
  app.get('/free', (_req, res) => void res.json({ free: true }))
  seller = await listen(app)
})
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const evmBalances = async () => ({
  seller: await localBase(d).balance('USDC', payTo),
  pusd: await localBase(d).balance('PUSD', payTo),
  payer: await localBase(d).balance('USDC', payer.address),
})

describe('a seller behind the parx payment gate', () => {
  it('answers 402 with PAYMENT-REQUIRED (v2), the v1 body, and no-store', async () => {
    const res = await fetch(`${seller.url}/usdc`)
    expect(res.status).toBe(402)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const v2 = decodeHeader<any>(res.headers.get('payment-required'))!
    expect(v2).toMatchObject({
      x402Version: 2,
      error: 'payment required',
      resource: { url: `${seller.url}/usdc`, description: 'a report' },
    })
    expect(v2.accepts).toEqual([
      {
        scheme: 'exact',
        network: localBase(d).caip2,
        asset: localBase(d).token('USDC').address,
        amount: String(USDC_PRICE),
        payTo,
        maxTimeoutSeconds: 120,
        extra: {
          assetTransferMethod: 'eip3009',
          name: 'USD Coin',
          version: '2',
          spender: d.services.accounts.facilitator,
        },
      },
    ])
    const v1 = await res.json()
    expect(v1).toMatchObject({
      x402Version: 1,
      accepts: [{ network: 'local-base', maxAmountRequired: String(USDC_PRICE), resource: `${seller.url}/usdc` }],
    })
    expect((await fetch(`${seller.url}/free`)).status).toBe(200)
  })

  it('is paid by the official @x402/fetch client (eip3009, v2), exactly once', async () => {
    const before = await evmBalances()
    const res = await officialBuyer(d, payer)(`${seller.url}/usdc`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('private')
    expect((await res.json()).paid).toBe('/usdc')
    const s = settlementOf(res)!
    expect(s).toMatchObject({ success: true, payer: payer.address, network: localBase(d).caip2 })
    const after = await evmBalances()
    expect(after.seller - before.seller).toBe(USDC_PRICE)
    expect(before.payer - after.payer).toBe(USDC_PRICE)
  })

  it('is paid by the parx client: erc2612 on PUSD, in v2 and in v1', async () => {
    for (const version of [2, 1] as const) {
      const before = await evmBalances()
      const res = await parxBuyer(d, { evm: payer }, version)(`${seller.url}/pusd`)
      expect(res.status, `v${version}`).toBe(200)
      expect(res.headers.get(version === 1 ? 'x-payment-response' : 'payment-response')).toBeTruthy()
      expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address })
      expect((await evmBalances()).pusd - before.pusd).toBe(PUSD_PRICE)
    }
  })

  it('is paid by the parx client in v1 with eip3009 too', async () => {
    const before = await evmBalances()
    const res = await parxBuyer(d, { evm: payer }, 1)(`${seller.url}/usdc`)
    expect(res.status).toBe(200)
    expect((await evmBalances()).seller - before.seller).toBe(USDC_PRICE)
  })

  it('is paid by the parx client with delegated-spl on local-solana, v2 and v1', async () => {
    for (const version of [2, 1] as const) {
      const before = await localSolana(d).balance('USDC', solPayTo)
      const res = await parxBuyer(d, { solana: solPayer }, version)(`${seller.url}/sol`)
      expect(res.status, `v${version}`).toBe(200)
      expect(settlementOf(res)).toMatchObject({
        success: true,
        payer: solPayer.publicKey.toBase58(),
        network: localSolana(d).caip2,
      })
      expect((await localSolana(d).balance('USDC', solPayTo)) - before).toBe(USDC_PRICE)
    }
    expect(await localSolana(d).balance('USDC', new PublicKey(solPayer.publicKey))).toBe(10_000_000n - 2n * USDC_PRICE)
  })

  it('does not charge when the handler fails', async () => {
    const before = await evmBalances()
    const res = await parxBuyer(d, { evm: payer })(`${seller.url}/broken`)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'the handler failed' })
    expect(res.headers.get('payment-response')).toBeNull()
    expect(await evmBalances()).toEqual(before)
  })

  it('delivers one payment once when its header arrives several times at once, and never again after', async () => {
    const required = decodeHeader<any>((await fetch(`${seller.url}/usdc`)).headers.get('payment-required'))!
    const payload = await signPayment(
      { evm: { signer: payer, clients: [d.services.base.client] } },
      required.accepts[0],
    )
    const header = encodeHeader({ x402Version: 2, accepted: required.accepts[0], payload, resource: required.resource })
    const before = await evmBalances()
    const send = () => fetch(`${seller.url}/usdc`, { headers: { 'PAYMENT-SIGNATURE': header } })
    const statuses = (await Promise.all([send(), send(), send()])).map((r) => r.status).sort()
    expect(statuses).toEqual([200, 402, 402])
    expect((await send()).status).toBe(402)
    expect((await evmBalances()).seller - before.seller).toBe(USDC_PRICE)
  })
})
