import { x402Client } from '@x402/core/client'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment as officialFetch } from '@x402/fetch'
import express from 'express'
import { Challenge } from 'mppx'
import { evm } from 'mppx/client'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, randomAddress } from './helpers/x402.js'
import { listen, recordingFetch } from './helpers/x402-buyers.js'

/**
 * Issue 39 item 4: a payment sent again (same payment id, same PAYMENT-SIGNATURE) is answered what
 * it was the first time, by parx's seller gate (its in-memory default) and by the platform's
 * /paid endpoint (its store): a POST is one order, paid once, even when the repeat arrives while
 * the first is still being served; a GET is served; another payload under the id is refused.
 */
let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let upstream: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
const payTo = randomAddress()
const PRICE = '10000' // 0.01 USDC
const calls = { order: 0, report: 0, slow: 0, platform: 0 }
const releaseSlow: Array<() => void> = []

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC'], '10')
  const price = { prices: [{ network: 'local-base', asset: 'USDC', amount: PRICE, payTo, method: 'eip3009' }] }
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: { 'POST /order': price, 'GET /report': price, 'POST /slow': price },
    }),
  )
  app.post('/order', (_req, res) => void res.json({ order: ++calls.order }))
  app.get('/report', (_req, res) => void res.json({ report: ++calls.report }))
  app.post('/slow', (_req, res) => {
    const n = ++calls.slow
    // The first is held until released; any other run answers at once (it must not have run at all).
    if (n === 1) releaseSlow.push(() => void res.json({ slow: n }))
    else res.json({ slow: n })
  })
  seller = await listen(app)
  const up = express()
  up.post('/order', (_req, res) => void res.json({ platformOrder: ++calls.platform }))
  upstream = await listen(up)
}, 120_000)
afterAll(async () => {
  releaseSlow.forEach((f) => f())
  await seller?.close()
  await upstream?.close()
  await d?.close()
})

const balance = () => localBase(d).balance('USDC', payTo)

/** The official @x402/fetch client, every purchase under the payment id `id` (the extension's documented client side). */
function officialBuyerWithId(id: string) {
  const client = x402Client.fromConfig({
    schemes: [
      { network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, d.services.base.client as never)) },
    ],
    spendControls: false,
  })
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (paymentRequired.extensions)
      appendPaymentIdentifierToExtensions(paymentRequired.extensions as Record<string, unknown>, id)
  })
  const rec = recordingFetch()
  return { buy: officialFetch(rec.f, client), sent: rec.sent }
}

describe('a retried payment at parx seller gate (in-memory answers)', () => {
  it('POST: the same PAYMENT-SIGNATURE twice gets the same body twice, the handler runs once, paid once; another payload under the id is refused', async () => {
    const { buy, sent } = officialBuyerWithId(`pay_retry_post_${Date.now()}`)
    const before = await balance()
    const first = await buy(`${seller.url}/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(first.status).toBe(200)
    const body = await first.json()
    expect(body).toEqual({ order: calls.order })
    const tx = settlementOf(first)!.transaction
    const again = await fetch(`${seller.url}/order`, {
      method: 'POST',
      headers: { 'payment-signature': sent[0]!, 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(body)
    expect(settlementOf(again)).toMatchObject({ success: true, transaction: tx })
    expect(again.headers.get('cache-control')).toBe('private')
    expect(calls.order).toBe(body.order)
    expect((await balance()) - before).toBe(BigInt(PRICE))

    // A new purchase signed under the same id is another payload: refused, the handler not run, nothing moves.
    const other = await buy(`${seller.url}/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":1}',
    })
    expect(other.status).toBe(402)
    expect(decodeHeader<{ error: string }>(other.headers.get('payment-required'))!.error).toBe(
      'payment_identifier_mismatch',
    )
    expect(calls.order).toBe(body.order)
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })

  it('a repeat while the first is still being served waits for its answer: both get the one order, paid once', async () => {
    const { buy, sent } = officialBuyerWithId(`pay_retry_slow_${Date.now()}`)
    const before = await balance()
    const first = buy(`${seller.url}/slow`, { method: 'POST' })
    while (releaseSlow.length === 0) await new Promise((r) => setTimeout(r, 10))
    const repeat = fetch(`${seller.url}/slow`, { method: 'POST', headers: { 'payment-signature': sent[0]! } })
    // The repeat is held, not run and not refused, while the first's handler has not answered.
    await new Promise((r) => setTimeout(r, 300))
    expect(calls.slow).toBe(1)
    releaseSlow.splice(0).forEach((f) => f())
    const [a, b] = await Promise.all([first, repeat])
    expect([a.status, b.status]).toEqual([200, 200])
    const [ja, jb] = [await a.json(), await b.json()]
    expect(jb).toEqual(ja)
    expect(settlementOf(b)).toMatchObject({ success: true, transaction: settlementOf(a)!.transaction })
    expect(calls.slow).toBe(1)
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })

  it('GET: the repeat is served 200 with the content, paid once', async () => {
    const { buy, sent } = officialBuyerWithId(`pay_retry_get_${Date.now()}`)
    const before = await balance()
    const first = await buy(`${seller.url}/report`)
    expect(first.status).toBe(200)
    const again = await fetch(`${seller.url}/report`, { headers: { 'payment-signature': sent[0]! } })
    expect(again.status).toBe(200)
    expect(await again.json()).toHaveProperty('report')
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })
})

describe('a retried payment at a platform /paid endpoint (answers in the store)', () => {
  it('POST: the same PAYMENT-SIGNATURE twice gets the same body twice, the upstream called once, paid once', async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'seller' } })
    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const payee = randomAddress()
    const e = await user.createEndpoint({
      body: { upstreamUrl: `${upstream.url}/order`, price: '0.01', network: 'local-base', token: 'USDC', payTo: payee },
    })
    const { buy, sent } = officialBuyerWithId(`pay_retry_paid_${Date.now()}`)
    const paid = () => localBase(d).balance('USDC', payee)
    const first = await buy(e.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":2}',
    })
    expect(first.status).toBe(200)
    const body = await first.json()
    expect(body).toEqual({ platformOrder: 1 })
    const again = await fetch(e.url, {
      method: 'POST',
      headers: { 'payment-signature': sent[0]!, 'content-type': 'application/json' },
      body: '{"item":2}',
    })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(body)
    expect(settlementOf(again)).toMatchObject({ success: true, transaction: settlementOf(first)!.transaction })
    expect(calls.platform).toBe(1)
    expect(await paid()).toBe(BigInt(PRICE))
  })

  it('MPP: the same credential twice gets the same body twice, the upstream called once, paid once', async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'mpp-seller' } })
    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const payee = randomAddress()
    const e = await user.createEndpoint({
      body: { upstreamUrl: `${upstream.url}/order`, price: '0.01', network: 'local-base', token: 'USDC', payTo: payee },
    })
    const [challenge] = Challenge.fromResponseList(await fetch(e.url, { method: 'POST' }))
    const credential = await evm
      .charge({ account: payer, authorization: d.services.base.tokens.USDC!.permitDomain! })
      .createCredential({ challenge: challenge as never, context: {} })
    const before = calls.platform
    const send = () =>
      fetch(e.url, {
        method: 'POST',
        headers: { authorization: credential, 'content-type': 'application/json' },
        body: '{"item":3}',
      })
    const first = await send()
    expect(first.status).toBe(200)
    const body = await first.json()
    expect(body).toEqual({ platformOrder: before + 1 })
    const again = await send()
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(body)
    expect(again.headers.get('payment-receipt')).toBe(first.headers.get('payment-receipt'))
    expect(calls.platform).toBe(before + 1)
    expect(await localBase(d).balance('USDC', payee)).toBe(BigInt(PRICE))
  })
})
