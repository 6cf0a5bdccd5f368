import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureHold, refundHold } from '../src/sdk/x402/seller/auth-capture/lifecycle.js'
import { type HoldStore, memoryHoldStore } from '../src/sdk/x402/seller/auth-capture/store.js'
import { HOLD_SWEEP_DEFAULTS, sweepHolds } from '../src/sdk/x402/seller/auth-capture/sweep.js'
import { facilitatorClient } from '../src/sdk/x402/seller/facilitator-client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { settleAmount } from '../src/sdk/x402/seller/usage.js'
import type { SettleResponse } from '../src/sdk/x402/types.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Our seller gate (src/sdk/x402/seller/auth-capture) paid by the official @x402/fetch with
 * @x402/evm's auth-capture client 2.27.0, unchanged, through our facilitator: the buyer holds USDC
 * and no ETH; the hold is placed before the handler runs, captured in full or in part (the rest
 * voided in the same settle), voided when the handler fails, refunded later by the seller, and a
 * deferred hold is captured twice. Every balance is read on chain to the unit.
 */
let d: TestDaemon
let holds: HoldStore
let seller: { url: string; close(): Promise<void> }
let buyer: PrivateKeyAccount
let pay: typeof fetch
let apiKey: string
let operator: Address
const payTo = privateKeyToAccount(generatePrivateKey())
const PRICE = 1000n
/** Requests each handler ran (the hold must be in place before). */
const ran: string[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  holds = memoryHoldStore()
  // The seller's consent to capture, void and refund: a partner key bound to payTo (the facilitator's receiver authorizer signs for it).
  apiKey = (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'seller', owner: payTo.address },
      headers: d.operatorHeaders(),
    })
  ).key
  const price = {
    network: 'local-base',
    asset: 'USDC',
    amount: String(PRICE),
    payTo: payTo.address,
    scheme: 'auth-capture' as const,
  }
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator, apiKey },
      routes: {
        'GET /report': { prices: [price] },
        'GET /metered': { prices: [price] },
        'GET /broken': { prices: [price] },
        'GET /throws': { prices: [price] },
        'GET /deferred': { prices: [{ ...price, captureMode: 'deferred' }] },
      },
      holds: { store: holds },
    }),
  )
  const held = async (name: string) => {
    ran.push(name)
  }
  app.get('/report', async (_req, res) => (await held('report'), void res.json({ paid: 'auth-capture' })))
  app.get('/metered', async (_req, res) => {
    await held('metered')
    settleAmount(res, '400')
    res.json({ used: 400 })
  })
  app.get(
    '/broken',
    async (_req, res) => (await held('broken'), void res.status(500).json({ error: 'the handler failed' })),
  )
  app.get('/throws', async (_req, _res, next) => (await held('throws'), next(new Error('the handler threw'))))
  app.get('/deferred', async (_req, res) => (await held('deferred'), void res.json({ deferred: true })))
  seller = await listen(app)
  buyer = await evmPayer(d, ['USDC'], '10')
  pay = wrapFetchWithPayment(fetch, officialClient())
  const s = await d.call<{ kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }> }>(
    '/facilitator/supported',
  )
  operator = s.kinds.find((k) => k.scheme === 'auth-capture' && k.network === localBase(d).caip2)!.extra
    .captureAuthorizer as Address
})
afterAll(async () => {
  await seller?.close()
  await d?.stop()
})

/** The official client paying auth-capture in the local USDC (a token it does not know by default, so allowed by name). */
const officialClient = () => {
  const b = localBase(d)
  return x402Client.fromConfig({
    schemes: [
      { network: 'eip155:*', client: new AuthCaptureEvmScheme(toClientEvmSigner(buyer, b.chain.client as never)) },
    ],
    spendControls: {
      allowedAssets: [
        {
          network: b.caip2 as `${string}:${string}`,
          asset: b.token('USDC').address as Address,
          maxAmountPerPayment: '10000',
        },
      ],
    },
  })
}
const balance = (a: Address) => localBase(d).balance('USDC', a)
const balances = async () => {
  const [b, s, o] = await Promise.all([balance(buyer.address), balance(payTo.address), balance(operator)])
  return { buyer: b, seller: s, operator: o }
}
const receipt = (r: Response) =>
  decodeHeader(r.headers.get('payment-response') ?? undefined) as
    | (SettleResponse & { extra: Record<string, unknown> })
    | undefined
const facilitator = () => facilitatorClient({ url: d.urls.facilitator, apiKey })

describe('our seller gate: auth-capture with the official client', () => {
  it("offers auth-capture with the facilitator's terms; an unpaid request is 402 and holds nothing", async () => {
    const r = await fetch(`${seller.url}/report`)
    expect(r.status).toBe(402)
    const required = decodeHeader(r.headers.get('payment-required') ?? undefined) as {
      accepts: Array<{ scheme: string; extra: Record<string, unknown> }>
    }
    expect(required.accepts[0]).toMatchObject({
      scheme: 'auth-capture',
      extra: {
        captureAuthorizer: operator,
        operatorType: 'delegated',
        paymentFlow: 'escrow',
        captureMode: 'sync',
        minFeeBps: 0,
        maxFeeBps: 0,
      },
    })
    expect(ran).toEqual([])
  })

  it('holds before the handler, captures the full price after it: the buyer (no ETH) pays exactly the price', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/report`)
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ paid: 'auth-capture' })
    const p = receipt(r)!
    expect(p, JSON.stringify(p)).toMatchObject({
      success: true,
      amount: '1000',
      extra: { operation: 'capture', voided: '0' },
    })
    expect(p.extra.authorizeTransaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(p.transaction).not.toBe(p.extra.authorizeTransaction)
    const b1 = await balances()
    expect(b1).toEqual({ buyer: b0.buyer - PRICE, seller: b0.seller + PRICE, operator: b0.operator })
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
    expect(await holds.get(p.extra.paymentInfoHash as Hex)).toMatchObject({
      status: 'captured',
      captured: '1000',
      voided: '0',
      refunded: '0',
      payer: buyer.address,
    })
  })

  it('captures what the handler reports and voids the rest in the same settle', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/metered`)
    expect(r.status).toBe(200)
    const p = receipt(r)!
    expect(p).toMatchObject({ success: true, amount: '400', extra: { operation: 'capture', voided: '600' } })
    expect(await balances()).toEqual({ buyer: b0.buyer - 400n, seller: b0.seller + 400n, operator: b0.operator })
    expect(await holds.get(p.extra.paymentInfoHash as Hex)).toMatchObject({
      status: 'captured',
      captured: '400',
      voided: '600',
    })
  })

  it('voids the hold when the handler fails or throws: the buyer is whole, the seller gets nothing', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/broken`)
    expect(r.status).toBe(500)
    const p = receipt(r)!
    expect(p).toMatchObject({ success: true, amount: '0', extra: { operation: 'void', voided: '1000' } })
    expect(await holds.get(p.extra.paymentInfoHash as Hex)).toMatchObject({
      status: 'voided',
      captured: '0',
      voided: '1000',
    })
    const t = await pay(`${seller.url}/throws`)
    expect(t.status).toBe(500)
    expect(ran.filter((x) => x === 'broken' || x === 'throws')).toEqual(['broken', 'throws'])
    expect(await balances()).toEqual(b0)
    expect((await holds.list(['voided'])).length).toBe(2)
  })

  it('a payment sent again is refused and charges nothing twice', async () => {
    const first = await fetch(`${seller.url}/report`)
    const required = decodeHeader(first.headers.get('payment-required') ?? undefined) as { accepts: unknown[] }
    const payload = await officialClient().createPaymentPayload(required as never)
    const header = Buffer.from(JSON.stringify(payload)).toString('base64')
    const b0 = await balances()
    const once = await fetch(`${seller.url}/report`, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(once.status).toBe(200)
    const again = await fetch(`${seller.url}/report`, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(again.status).toBe(402)
    expect(await balances()).toEqual({ buyer: b0.buyer - PRICE, seller: b0.seller + PRICE, operator: b0.operator })
  })

  it("refunds a capture later, funded by the seller's own signature (no ETH); never more than was captured", async () => {
    const r = await pay(`${seller.url}/report`)
    const id = receipt(r)!.extra.paymentInfoHash as Hex
    const b0 = await balances()
    const c = { facilitator: facilitator(), store: holds }
    const refund = await refundHold(c, id, { amount: '300', signer: payTo })
    expect(refund, JSON.stringify(refund)).toMatchObject({
      success: true,
      amount: '300',
      extra: { operation: 'refund' },
    })
    expect(await balances()).toEqual({ buyer: b0.buyer + 300n, seller: b0.seller - 300n, operator: b0.operator })
    expect(await holds.get(id)).toMatchObject({ captured: '1000', refunded: '300' })
    await expect(refundHold(c, id, { amount: '701', signer: payTo })).rejects.toMatchObject({
      code: 'HOLD_AMOUNT_INVALID',
    })
    expect((await refundHold(c, id, { signer: payTo })).success).toBe(true)
    expect(await balances()).toEqual({ buyer: b0.buyer + 1000n, seller: b0.seller - 1000n, operator: b0.operator })
    expect(await localBase(d).chain.client.getBalance({ address: payTo.address })).toBe(0n)
  })

  it('deferred: the answer goes out on the hold; the seller captures twice later, the second closing out the rest', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/deferred`)
    expect(r.status).toBe(200)
    const p = receipt(r)!
    expect(p).toMatchObject({ success: true, amount: '1000', extra: { operation: 'authorize' } })
    const id = p.extra.paymentInfoHash as Hex
    expect(await balances()).toEqual({ buyer: b0.buyer - PRICE, seller: b0.seller, operator: b0.operator })
    expect(await holds.get(id)).toMatchObject({ status: 'held', captured: '0' })
    const c = { facilitator: facilitator(), store: holds }
    expect(await captureHold(c, id, { amount: '300' })).toMatchObject({
      success: true,
      amount: '300',
      extra: { voided: '0' },
    })
    expect(await holds.get(id)).toMatchObject({ status: 'held', captured: '300' })
    expect(await captureHold(c, id, { amount: '200', closeOut: true })).toMatchObject({
      success: true,
      amount: '200',
      extra: { voided: '500' },
    })
    expect(await holds.get(id)).toMatchObject({ status: 'captured', captured: '500', voided: '500' })
    expect(await balances()).toEqual({ buyer: b0.buyer - 500n, seller: b0.seller + 500n, operator: b0.operator })
    await expect(captureHold(c, id, { amount: '1' })).rejects.toMatchObject({ code: 'HOLD_AMOUNT_INVALID' })
  })

  it('a capture whose answer was lost is asked again with the same idempotency key and answered its first outcome: captured once', async () => {
    const b0 = await balances()
    const id = receipt(await pay(`${seller.url}/deferred`))!.extra.paymentInfoHash as Hex
    // The facilitator settles, then the connection drops before the seller reads the answer.
    const real = facilitator()
    const lost = {
      ...real,
      settle: async (b: never) => (await real.settle(b), Promise.reject(new Error('socket hang up'))),
    }
    const cut = await captureHold({ facilitator: lost as never, store: holds }, id, { amount: '600', closeOut: true })
    expect(cut).toMatchObject({ success: false, errorReason: 'unexpected_settle_error' })
    expect(await holds.get(id)).toMatchObject({ status: 'held', captured: '0' })
    expect(await balances()).toEqual({ buyer: b0.buyer - 600n, seller: b0.seller + 600n, operator: b0.operator })
    const again = await captureHold({ facilitator: real, store: holds }, id, { amount: '600', closeOut: true })
    expect(again, JSON.stringify(again)).toMatchObject({ success: true, amount: '600', extra: { replayed: true } })
    expect(await holds.get(id)).toMatchObject({
      status: 'captured',
      captured: '600',
      voided: '400',
      captureTransaction: again.transaction,
    })
    expect(await balances()).toEqual({ buyer: b0.buyer - 600n, seller: b0.seller + 600n, operator: b0.operator })
  })

  it('a deferred hold left uncaptured is voided by the sweep before its capture deadline, not before', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/deferred`)
    const id = receipt(r)!.extra.paymentInfoHash as Hex
    const hold = (await holds.get(id))!
    const sweep = (now: number) => sweepHolds({ store: holds, facilitatorFor: () => facilitator(), now })
    expect(await sweep(Date.now() + HOLD_SWEEP_DEFAULTS.staleMs)).toEqual([])
    expect(await balances()).toEqual({ buyer: b0.buyer - PRICE, seller: b0.seller, operator: b0.operator })
    const swept = await sweep((hold.captureDeadline - HOLD_SWEEP_DEFAULTS.marginSeconds) * 1000)
    expect(swept.map((x) => [x.hold.id, x.result.success])).toEqual([[id, true]])
    expect(await holds.get(id)).toMatchObject({ status: 'voided', voided: '1000' })
    expect(await balances()).toEqual(b0)
  })
})
