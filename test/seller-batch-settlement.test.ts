import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import {
  BatchSettlementEvmScheme as BatchClient,
  createBatchSettlementEIP3009DepositPayload,
} from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { type Address, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sellerChannelStore } from '../daemon/seller/batch-settlement/channel-store.js'
import type { Store } from '../daemon/store/store.js'
import { claimAndSettle } from '../src/sdk/x402/seller/batch-settlement/claim.js'
import type { ChannelStore } from '../src/sdk/x402/seller/batch-settlement/store.js'
import { facilitatorClient } from '../src/sdk/x402/seller/facilitator-client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { settleAmount } from '../src/sdk/x402/seller/usage.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { openTestStore } from './helpers/store.js'
import { evmPayer, localBase, randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Our seller middleware (src/sdk/x402/seller) serving batch-settlement to the official packages
 * unchanged: an @x402/fetch buyer with @x402/evm's batch-settlement client holding USDC and no
 * ETH, channel state in the daemon's store (SQLite, and PostgreSQL in the postgres project), our facilitator for the deposit, the
 * claim, the sweep and the refund.
 */
let d: TestDaemon
let store: Store
let channels: ChannelStore
let seller: { url: string; close(): Promise<void> }
let account: PrivateKeyAccount
let buyer: Address
let batchClient: BatchClient
let pay: typeof fetch
let apiKey: string
const payTo = randomAddress()
const PRICE = 1000n
const DEPOSIT = 30_000n
/** Every call the middleware makes to the facilitator, by path. */
const calls: string[] = []
/** Requests /report's handler served. */
let served = 0

function officialBatchBuyer(): { client: BatchClient; pay: typeof fetch } {
  const b = localBase(d)
  const client = new BatchClient(toClientEvmSigner(account, b.chain.client as never), {
    depositStrategy: () => String(DEPOSIT),
  })
  const x = x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client }],
    spendControls: {
      allowedAssets: [
        { network: b.caip2 as `${string}:${string}`, asset: b.token('USDC').address, maxAmountPerPayment: '10000' },
      ],
    },
  })
  return { client, pay: wrapFetchWithPayment(fetch, x) }
}

beforeAll(async () => {
  d = await startTestDaemon()
  // The daemon's channel store of the dialect under test (SQLite; PostgreSQL in the postgres project).
  store = await openTestStore()
  channels = sellerChannelStore(store)
  const price = {
    network: 'local-base',
    asset: 'USDC',
    amount: String(PRICE),
    payTo,
    scheme: 'batch-settlement' as const,
  }
  // The facilitator signs a delegated refund only for the channel's receiver: the seller's partner key is bound to payTo.
  apiKey = (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'seller', owner: payTo },
      headers: d.operatorHeaders(),
    })
  ).key
  const app = express()
  app.use(
    paymentGate({
      facilitator: {
        url: d.urls.facilitator,
        apiKey,
        fetch: (url, init) => (calls.push(new URL(String(url)).pathname.split('/').pop()!), fetch(url, init)),
      },
      routes: {
        'GET /report': { prices: [price] },
        'GET /metered': { prices: [price] },
        'GET /broken': { prices: [price] },
      },
      channels: { store: channels },
    }),
  )
  app.get('/report', (_req, res) => (served++, void res.json({ paid: 'batch-settlement' })))
  app.get('/metered', (_req, res) => {
    settleAmount(res, '400')
    res.json({ used: 400 })
  })
  app.get('/broken', (_req, res) => void res.status(500).json({ error: 'the handler failed' }))
  seller = await listen(app)
  account = await evmPayer(d, ['USDC'], '10')
  buyer = account.address
  ;({ client: batchClient, pay } = officialBatchBuyer())
})
afterAll(async () => {
  await seller?.close()
  await store?.close()
  await d?.stop()
})

const chargedOf = async () => (await channels.claimable())[0]?.chargedCumulativeAmount

describe('our seller middleware: batch-settlement with the official client', () => {
  it('one deposit, then 20 voucher-only requests checked locally: no transaction, no facilitator call', async () => {
    const b = localBase(d)
    expect(await b.chain.client.getBalance({ address: buyer })).toBe(0n)
    const first = await pay(`${seller.url}/report`)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ paid: 'batch-settlement' })
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - DEPOSIT)
    const block = await b.chain.client.getBlockNumber()
    const nonce = await b.chain.client.getTransactionCount({ address: buyer })
    calls.length = 0
    for (let i = 0; i < 20; i++) {
      const r = await pay(`${seller.url}/report`)
      expect(r.status, `request ${i + 2}`).toBe(200)
      const receipt = decodeHeader(r.headers.get('payment-response') ?? undefined) as Record<string, any>
      expect(receipt).toMatchObject({
        success: true,
        transaction: '',
        extra: {
          chargedAmount: String(PRICE),
          channelState: { chargedCumulativeAmount: String(PRICE * BigInt(i + 2)) },
        },
      })
    }
    expect(await b.chain.client.getBlockNumber()).toBe(block)
    expect(await b.chain.client.getTransactionCount({ address: buyer })).toBe(nonce)
    expect(calls).toEqual([])
    expect(await chargedOf()).toBe(String(21n * PRICE))
  })

  it('a usage-charged route charges what the handler reported, below the per-request maximum', async () => {
    const r = await pay(`${seller.url}/metered`)
    expect(r.status).toBe(200)
    const receipt = decodeHeader(r.headers.get('payment-response') ?? undefined) as Record<string, any>
    expect(receipt.extra).toMatchObject({
      chargedAmount: '400',
      channelState: { chargedCumulativeAmount: String(21n * PRICE + 400n) },
    })
    // The client carried the partial charge: its next voucher is accepted as is.
    expect((await pay(`${seller.url}/report`)).status).toBe(200)
    expect(await chargedOf()).toBe(String(22n * PRICE + 400n))
  })

  it('a failed handler is not charged, and the buyer goes on from the same total', async () => {
    const r = await pay(`${seller.url}/broken`)
    expect(r.status).toBe(500)
    expect(r.headers.get('payment-response')).toBeNull()
    expect(await chargedOf()).toBe(String(22n * PRICE + 400n))
    expect((await pay(`${seller.url}/report`)).status).toBe(200)
    expect(await chargedOf()).toBe(String(23n * PRICE + 400n))
  })

  it('a self-authorized buyer (its channel names itself as receiver authorizer) is refused before anything is served or sent', async () => {
    const unpaid = await fetch(`${seller.url}/report`)
    const offer = (decodeHeader(unpaid.headers.get('payment-required')) as { accepts: PaymentRequirements[] })
      .accepts[0]!
    const self = {
      payer: buyer,
      payerAuthorizer: buyer,
      receiver: payTo,
      receiverAuthorizer: buyer,
      token: offer.asset as Address,
      withdrawDelay: 900,
      salt: toHex(77, { size: 32 }),
    }
    const dep = await createBatchSettlementEIP3009DepositPayload(
      toClientEvmSigner(account, localBase(d).chain.client as never),
      2,
      offer as never,
      self,
      '5000',
      String(PRICE),
    )
    const before = { served, calls: calls.length, buyer: await localBase(d).balance('USDC', buyer) }
    const res = await fetch(`${seller.url}/report`, {
      headers: { 'payment-signature': encodeHeader({ x402Version: 2, accepted: offer, payload: dep.payload }) },
    })
    expect(res.status).toBe(402)
    expect(decodeHeader(res.headers.get('payment-required'))).toMatchObject({
      error: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
    })
    expect({ served, calls: calls.length, buyer: await localBase(d).balance('USDC', buyer) }).toEqual(before)
  })

  it('a buyer whose total drifted gets the corrective 402 and the official client resumes from it', async () => {
    // A second client of the same wallet and channel with no memory of it: it reads the chain (nothing claimed) and signs too low.
    const fresh = officialBatchBuyer()
    const raw = await fetch(`${seller.url}/report`)
    expect(raw.status).toBe(402)
    const r = await fresh.pay(`${seller.url}/report`)
    expect(r.status).toBe(200)
    expect(await chargedOf()).toBe(String(24n * PRICE + 400n))
    // The original client's total is behind now: it recovers the same way.
    expect((await pay(`${seller.url}/report`)).status).toBe(200)
    expect(await chargedOf()).toBe(String(25n * PRICE + 400n))
  })

  it('claim-and-settle moves exactly what was charged to payTo in one claim and one sweep', async () => {
    const b = localBase(d)
    const charged = 25n * PRICE + 400n
    const report = await claimAndSettle({
      store: channels,
      facilitator: facilitatorClient({ url: d.urls.facilitator, apiKey }),
      force: true,
    })
    expect(report.errors).toEqual([])
    expect(report.claims).toHaveLength(1)
    expect(report.settlements).toHaveLength(1)
    expect(report.settlements[0]!.settle.transaction).toMatch(/^0x/)
    expect(await b.balance('USDC', payTo)).toBe(charged)
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - DEPOSIT)
    expect(await channels.claimable()).toEqual([])
    // Nothing new charged: a second round claims nothing.
    expect(
      (
        await claimAndSettle({
          store: channels,
          facilitator: facilitatorClient({ url: d.urls.facilitator, apiKey }),
          force: true,
        })
      ).claims,
    ).toEqual([])
  })

  it('refunds the unspent deposit cooperatively, asked by the buyer through our middleware', async () => {
    const b = localBase(d)
    const charged = 25n * PRICE + 400n
    const r = await batchClient.refund(`${seller.url}/report`)
    expect(r).toMatchObject({ success: true, amount: String(DEPOSIT - charged) })
    expect(await b.balance('USDC', buyer)).toBe(10_000_000n - charged)
    expect(await b.balance('USDC', payTo)).toBe(charged)
    expect(await b.chain.client.getBalance({ address: buyer })).toBe(0n)
  })
})
