import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, randomAddress } from './helpers/x402.js'
import { officialBuyer } from './helpers/x402-buyers.js'

/**
 * A platform seller endpoint created with `authCapture: true`, paid by the official @x402/fetch
 * with @x402/evm's auth-capture client (USDC, no ETH): held before the upstream is called,
 * captured after it answered, voided when it failed (the buyer whole), and refunded by the seller
 * through POST /api/refunds from the endpoint's agent wallet; on SQLite and PostgreSQL.
 */
const PRICE = 1000n // 0.001 USDC
let d: TestDaemon
let buyer: PrivateKeyAccount
let pay: typeof fetch
let hook: { url: string; got: Array<{ type: string; data: Record<string, unknown> }>; close(): Promise<void> }
/** A real upstream on 127.0.0.1 that reports what each call used: /used/<Settlement-Overrides amount> (`garbage`: a report that is not JSON). */
let metered: { url: string; close(): Promise<void> }

beforeAll(async () => {
  d = await startTestDaemon()
  const got: Array<{ type: string; data: Record<string, unknown> }> = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => (got.push(JSON.parse(body)), res.end()))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  hook = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  }
  const upstream = createServer((req, res) => {
    const used = decodeURIComponent(req.url?.split('/used/')[1] ?? '')
    const report = used === 'garbage' ? 'not json' : JSON.stringify({ amount: used })
    res
      .writeHead(200, { 'content-type': 'application/json', 'settlement-overrides': report })
      .end(JSON.stringify({ used }))
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  metered = {
    url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    close: () => new Promise((r) => upstream.close(() => r())),
  }
  buyer = await evmPayer(d, ['USDC'], '1')
  const b = localBase(d)
  pay = wrapFetchWithPayment(
    fetch,
    x402Client.fromConfig({
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
    }),
  )
}, 120_000)
afterAll(async () => {
  await hook?.close()
  await metered?.close()
  await d?.close()
})

const usdc = (a: string) => localBase(d).balance('USDC', a as Address)

describe('platform endpoint offering auth-capture', () => {
  it('holds, captures after the upstream answered, voids a failed upstream, and refunds through POST /api/refunds', async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const seller = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
    })
    const other = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'other' } })).userKey,
    })
    const agent = await seller.createAgent({ body: { name: 'payee', network: 'local-base' } })
    const body = {
      upstreamUrl: `${d.urls.api}/api/health`,
      price: '0.001',
      network: 'local-base',
      token: 'USDC',
      payTo: agent.id,
      authCapture: true,
      webhookUrl: hook.url,
    }
    const e = await seller.createEndpoint({ body })
    expect(e.authCapture).toBe(true)
    // The platform captures, voids and funds refunds from payTo's wallet: an address it does not hold is refused.
    await expect(seller.createEndpoint({ body: { ...body, payTo: randomAddress() } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    })
    await expect(seller.createEndpoint({ body: { ...body, token: 'PUSD' } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    })
    const failing = await seller.createEndpoint({ body: { ...body, upstreamUrl: `${d.urls.api}/api/nope` } })

    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    const terms = decodeHeader(unpaid.headers.get('payment-required') ?? undefined) as {
      accepts: { scheme: string; extra: Record<string, unknown> }[]
    }
    expect(terms.accepts.find((a) => a.scheme === 'auth-capture')?.extra).toMatchObject({
      operatorType: 'delegated',
      paymentFlow: 'escrow',
      captureMode: 'sync',
    })

    const b0 = await usdc(buyer.address)
    const r = await pay(e.url)
    expect(r.status).toBe(200)
    const receipt = decodeHeader(r.headers.get('payment-response') ?? undefined) as {
      success: boolean
      amount: string
      extra: Record<string, unknown>
    }
    expect(receipt).toMatchObject({ success: true, amount: '1000', extra: { operation: 'capture', voided: '0' } })
    expect(await usdc(buyer.address)).toBe(b0 - PRICE)
    expect(await usdc(agent.wallet)).toBe(PRICE)

    // A failing upstream: the hold is voided, the buyer is whole, the seller gets nothing.
    const f = await pay(failing.url)
    expect(f.status).toBe(404)
    expect(decodeHeader(f.headers.get('payment-response') ?? undefined)).toMatchObject({
      success: true,
      extra: { operation: 'void', voided: '1000' },
    })
    expect(await usdc(buyer.address)).toBe(b0 - PRICE)
    expect(await usdc(agent.wallet)).toBe(PRICE)

    const paymentId = receipt.extra.paymentInfoHash as string
    await expect(other.refundPayment({ body: { paymentId } })).rejects.toMatchObject({ code: 'HOLD_NOT_FOUND' })
    await expect(seller.refundPayment({ body: { paymentId, amount: '0.0011' } })).rejects.toMatchObject({
      code: 'HOLD_AMOUNT_INVALID',
    })
    const refund = await seller.refundPayment({ body: { paymentId, amount: '0.0004' } })
    expect(refund).toMatchObject({
      paymentId,
      endpointId: e.id,
      token: 'USDC',
      amount: '0.0004',
      amountRaw: '400',
      captured: '0.001',
      refunded: '0.0004',
    })
    expect(await usdc(buyer.address)).toBe(b0 - PRICE + 400n)
    expect(await usdc(agent.wallet)).toBe(PRICE - 400n)
    expect(await seller.refundPayment({ body: { paymentId } })).toMatchObject({ amount: '0.0006', refunded: '0.001' })
    expect(await usdc(buyer.address)).toBe(b0)
    expect(await usdc(agent.wallet)).toBe(0n)
    await expect(seller.refundPayment({ body: { paymentId } })).rejects.toMatchObject({ code: 'HOLD_AMOUNT_INVALID' })
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)

    // Webhooks: the hold, the capture, the void of the failed call, and both refunds, each once.
    const events = await until(
      async () => hook.got,
      (got) => got.length >= 6,
      'the webhooks',
    )
    const of = (endpointId: string) =>
      events.filter((x) => x.data.endpointId === endpointId).map((x) => [x.type, x.data.amount])
    expect(of(e.id)).toEqual(
      expect.arrayContaining([
        ['payment.authorized', '0.001'],
        ['payment.captured', '0.001'],
        ['payment.refunded', '0.0004'],
        ['payment.refunded', '0.0006'],
      ]),
    )
    expect(of(failing.id)).toEqual(
      expect.arrayContaining([
        ['payment.authorized', '0.001'],
        ['payment.voided', '0.001'],
      ]),
    )
    expect(events.find((x) => x.type === 'payment.captured')!.data).toMatchObject({
      paymentId,
      scheme: 'auth-capture',
      voided: '0',
      payer: buyer.address,
    })
  })

  it('captures what the upstream reports it used (Settlement-Overrides), never more than held, the rest voided in the same settle; exact pays its price whatever is reported', async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const seller = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'metered seller' } })).userKey,
    })
    const agent = await seller.createAgent({ body: { name: 'metered payee', network: 'local-base' } })
    const at = (used: string) =>
      seller.createEndpoint({
        body: {
          upstreamUrl: `${metered.url}/used/${encodeURIComponent(used)}`,
          price: '0.001',
          network: 'local-base',
          token: 'USDC',
          payTo: agent.id,
          authCapture: true,
          webhookUrl: hook.url,
        },
      })
    const partial = await at('400')
    const b0 = await usdc(buyer.address)

    const r = await pay(partial.url)
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ used: '400' })
    // The report is the upstream's word to the platform, never the buyer's to read.
    expect(r.headers.get('settlement-overrides')).toBeNull()
    const receipt = decodeHeader(r.headers.get('payment-response') ?? undefined) as {
      success: boolean
      amount: string
      transaction: string
      extra: Record<string, unknown>
    }
    // One settle: the capture of 400 closes the hold, its 600 voided in the same transaction.
    expect(receipt).toMatchObject({ success: true, amount: '400', extra: { operation: 'capture', voided: '600' } })
    expect(await usdc(buyer.address)).toBe(b0 - 400n)
    expect(await usdc(agent.wallet)).toBe(400n)
    const events = await until(
      async () => hook.got.filter((x) => x.data.endpointId === partial.id),
      (got) => got.length >= 2,
      'the partial capture webhooks',
    )
    expect(events.find((x) => x.type === 'payment.captured')!.data).toMatchObject({
      amount: '0.0004',
      voided: '0.0006',
      transaction: receipt.transaction,
    })
    expect(events.filter((x) => x.type === 'payment.voided')).toEqual([])

    // A report above the held price captures what was held, never more.
    const over = await pay((await at('5000')).url)
    expect(over.status).toBe(200)
    expect(decodeHeader(over.headers.get('payment-response') ?? undefined)).toMatchObject({
      success: true,
      amount: '1000',
      extra: { operation: 'capture', voided: '0' },
    })
    expect(await usdc(buyer.address)).toBe(b0 - 1400n)
    expect(await usdc(agent.wallet)).toBe(1400n)

    // A report of nothing used: the whole hold goes back.
    const none = await pay((await at('0')).url)
    expect(none.status).toBe(200)
    expect(decodeHeader(none.headers.get('payment-response') ?? undefined)).toMatchObject({
      success: true,
      extra: { operation: 'void', voided: '1000' },
    })
    expect(await usdc(buyer.address)).toBe(b0 - 1400n)

    // A report that cannot be read is refused as the gate refuses its own handler's: voided, 402, the buyer whole.
    const garbage = await at('garbage')
    const g = await pay(garbage.url)
    expect(g.status).toBe(402)
    expect(await usdc(buyer.address)).toBe(b0 - 1400n)
    expect(await usdc(agent.wallet)).toBe(1400n)

    // exact on the same endpoints: the price, whatever the upstream reports (less, or unreadable).
    const exactBuyer = await evmPayer(d, ['USDC'], '1')
    const payExact = officialBuyer(d, exactBuyer)
    const e0 = await usdc(exactBuyer.address)
    const x = await payExact(partial.url)
    expect(x.status).toBe(200)
    expect(x.headers.get('settlement-overrides')).toBeNull()
    expect(decodeHeader(x.headers.get('payment-response') ?? undefined)).toMatchObject({ success: true })
    const y = await payExact(garbage.url)
    expect(y.status).toBe(200)
    expect(await usdc(exactBuyer.address)).toBe(e0 - 2n * PRICE)
    expect(await usdc(agent.wallet)).toBe(1400n + 2n * PRICE)
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
  })
})
