import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { FileClientChannelStorage } from '@x402/evm/batch-settlement/client/file-storage'
import type { BatchSettlementChannelManager } from '@x402/evm/batch-settlement/server'
import { FileChannelStorage } from '@x402/evm/batch-settlement/server/file-storage'
import { declareEip2612GasSponsoringExtension } from '@x402/extensions'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type OfficialSeller, officialSeller } from './helpers/official-seller.js'
import { evmPayer, localBase, randomAddress, sellerFacilitator } from './helpers/x402.js'

/**
 * The official packages unchanged against our facilitator: an @x402/express seller with the
 * batch-settlement server scheme and its channel manager (receiver authorization delegated to
 * our facilitator, refunds asked with the seller's partner key), an @x402/fetch buyer with the
 * batch-settlement client holding USDC and no ETH. Then a second seller and buyer on the official
 * file storages, the buyer depositing through Permit2 (EIP-2612 gas sponsoring), the seller
 * charging less than the per-request maximum.
 */
let d: TestDaemon
let dir: string
let seller: OfficialSeller
let manager: BatchSettlementChannelManager
let pay: typeof fetch
let buyer: Address
let batchClient: BatchClient
const payTo = randomAddress()
const PRICE = '1000'

beforeAll(async () => {
  d = await startTestDaemon()
  dir = mkdtempSync(join(tmpdir(), 'parx-batch-files-'))
  const b = localBase(d)
  const usdc = b.token('USDC')
  const network = b.caip2 as `${string}:${string}`
  seller = await officialSeller({
    facilitator: sellerFacilitator(d, payTo),
    network,
    payTo,
    token: usdc,
    routes: { '/report': { amount: PRICE } },
  })
  manager = seller.manager

  const account = await evmPayer(d, ['USDC'], '10')
  buyer = account.address
  const client = x402Client.fromConfig({
    schemes: [
      {
        network: 'eip155:*',
        client: (batchClient = new BatchClient(toClientEvmSigner(account, b.chain.client as never), {
          depositStrategy: () => '30000',
        })),
      },
    ],
    // One deposit of 30,000 (depositStrategy, within 10x this cap) covers the 21 requests below.
    spendControls: { allowedAssets: [{ network, asset: usdc.address, maxAmountPerPayment: '10000' }] },
  })
  pay = wrapFetchWithPayment(fetch, client)
})
afterAll(async () => {
  await seller?.close()
  await fileSeller?.close()
  await d?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
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
    console.log(
      `batch-settlement voucher request through our facilitator: p50 ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms`,
    )

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

let fileSeller: OfficialSeller | undefined

describe('official file storages, a Permit2 deposit and usage-based charges through our facilitator', () => {
  const payTo2 = randomAddress()
  const MAX = '1000'
  const CHARGE = 250n
  let buyer2: PrivateKeyAccount
  let manager2: BatchSettlementChannelManager
  /** A fresh official client over the buyer's channel files, as a restarted buyer process would have. */
  const client2 = () =>
    new BatchClient(toClientEvmSigner(buyer2, localBase(d).chain.client as never), {
      storage: new FileClientChannelStorage({ directory: join(dir, 'buyer') }),
      depositStrategy: () => '20000',
    })
  const payWith = (c: BatchClient) =>
    wrapFetchWithPayment(
      fetch,
      x402Client.fromConfig({
        schemes: [{ network: 'eip155:*', client: c }],
        spendControls: {
          allowedAssets: [
            {
              network: localBase(d).caip2 as `${string}:${string}`,
              asset: localBase(d).token('USDC').address,
              maxAmountPerPayment: '10000',
            },
          ],
        },
      }),
    )

  beforeAll(async () => {
    const b = localBase(d)
    const usdc = b.token('USDC')
    const network = b.caip2 as `${string}:${string}`
    fileSeller = await officialSeller({
      facilitator: sellerFacilitator(d, payTo2),
      network,
      payTo: payTo2,
      token: usdc,
      storage: new FileChannelStorage({ directory: join(dir, 'seller') }),
      // Charges a quarter of the maximum the buyer authorized per request.
      routes: {
        '/usage': {
          amount: MAX,
          charge: String(CHARGE),
          extra: { assetTransferMethod: 'permit2' },
          extensions: { ...declareEip2612GasSponsoringExtension() },
        },
      },
    })
    manager2 = fileSeller.manager
    buyer2 = await evmPayer(d, ['USDC'], '1')
  })

  it('deposits once through Permit2 with no ETH and no approval, charges 250 of 1,000 per request, survives a buyer restart on its files, claims, settles and refunds', async () => {
    const b = localBase(d)
    let pay = payWith(client2())
    for (let i = 0; i < 3; i++) expect((await pay(`${fileSeller!.url}/usage`)).status, `request ${i + 1}`).toBe(200)
    expect(await b.balance('USDC', buyer2.address)).toBe(1_000_000n - 20_000n)
    // Through Permit2: the buyer's EIP-2612 permit for Permit2 was used (its permit nonce moved) and its allowance spent.
    expect(await b.permitNonce('USDC', buyer2.address)).toBe(1n)
    // A new client over the same files carries on with vouchers: no second deposit, no transaction.
    const block = await b.chain.client.getBlockNumber()
    const restarted = client2()
    pay = payWith(restarted)
    for (let i = 0; i < 2; i++) expect((await pay(`${fileSeller!.url}/usage`)).status, `request ${i + 4}`).toBe(200)
    expect(await b.chain.client.getBlockNumber()).toBe(block)

    await manager2.claimAndSettle()
    expect(await b.balance('USDC', payTo2)).toBe(5n * CHARGE)
    const refund = await restarted.refund(`${fileSeller!.url}/usage`)
    expect(refund).toMatchObject({ success: true, amount: String(20_000n - 5n * CHARGE) })
    expect(await b.balance('USDC', buyer2.address)).toBe(1_000_000n - 5n * CHARGE)
    expect(await b.chain.client.getBalance({ address: buyer2.address })).toBe(0n)
  })
})
