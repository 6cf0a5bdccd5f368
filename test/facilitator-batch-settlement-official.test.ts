import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { BatchSettlementChannelManager, BatchSettlementEvmScheme as BatchServer } from '@x402/evm/batch-settlement/server'
import { paymentMiddleware } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * The official packages unchanged against our facilitator: an @x402/express seller with the
 * batch-settlement server scheme and its channel manager (receiver authorization delegated to
 * our facilitator), an @x402/fetch buyer with the batch-settlement client holding USDC and no ETH.
 */
let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let manager: BatchSettlementChannelManager
let pay: typeof fetch
let buyer: Address
let batchClient: BatchClient
const payTo = randomAddress()
const PRICE = '1000'

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  const usdc = b.token('USDC')
  const network = b.caip2 as `${string}:${string}`
  const facilitator = new HTTPFacilitatorClient({ url: d.urls.facilitator })
  const scheme = new BatchServer(payTo, { withdrawDelay: 900 })
  const server = new x402ResourceServer(facilitator).register(network, scheme)
  const app = express()
  app.use(paymentMiddleware({
    'GET /report': { accepts: { scheme: 'batch-settlement', network, payTo, price: { amount: PRICE, asset: usdc.address, extra: { name: usdc.name, version: usdc.version } } } },
  }, server))
  app.get('/report', (_req, res) => void res.json({ paid: 'batch-settlement' }))
  seller = await listen(app)
  manager = new BatchSettlementChannelManager({ scheme, facilitator, receiver: payTo, token: usdc.address as Address, network })

  const account = await evmPayer(d, ['USDC'], '10')
  buyer = account.address
  const client = x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client: (batchClient = new BatchClient(toClientEvmSigner(account, b.chain.client as never), { depositStrategy: () => '30000' })) }],
    // One deposit of 30,000 (depositStrategy, within 10x this cap) covers the 21 requests below.
    spendControls: { allowedAssets: [{ network, asset: usdc.address, maxAmountPerPayment: '10000' }] },
  })
  pay = wrapFetchWithPayment(fetch, client)
})
afterAll(async () => {
  await seller?.close()
  await d?.stop()
})

describe('official batch-settlement client and server through our facilitator', () => {
  it('one deposit, then 20 voucher-only requests, claim and settle by the channel manager, balances exact', async () => {
    const b = localBase(d)
    expect(await b.chain.client.getBalance({ address: buyer })).toBe(0n)
    const first = await pay(`${seller.url}/report`)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ paid: 'batch-settlement' })
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - 30_000n)
    const block = await b.chain.client.getBlockNumber()
    const times: number[] = []
    for (let i = 0; i < 20; i++) {
      const t = performance.now()
      const r = await pay(`${seller.url}/report`)
      times.push(performance.now() - t)
      expect(r.status, `request ${i + 2}`).toBe(200)
    }
    expect(await b.chain.client.getBlockNumber()).toBe(block)
    times.sort((x, y) => x - y)
    console.log(`batch-settlement voucher request through our facilitator: p50 ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms`)

    const out = await manager.claimAndSettle()
    expect(out).toBeTruthy()
    expect(await b.balance('USDC', payTo)).toBe(21_000n)
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - 30_000n)
    expect(await b.chain.client.getBalance({ address: buyer })).toBe(0n)
  })

  it('refunds the unspent deposit cooperatively, asked by the buyer through the seller', async () => {
    const b = localBase(d)
    const r = await batchClient.refund(`${seller.url}/report`)
    expect(r).toMatchObject({ success: true, amount: '9000' })
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - 21_000n)
    expect(await b.balance('USDC', payTo)).toBe(21_000n)
    expect(await b.chain.client.getBalance({ address: buyer })).toBe(0n)
  })
})
