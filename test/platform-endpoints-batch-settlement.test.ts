import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, randomAddress } from './helpers/x402.js'

/**
 * A platform seller endpoint created with `batchSettlement: true`, paid by the official
 * @x402/fetch batch-settlement client (USDC only, no ETH): one deposit, then vouchers; the
 * leader's worker claims and sweeps once the unclaimed total reaches the configured threshold,
 * and the seller's webhook gets one signed event for that sweep.
 */
const PRICE = 1000n // 0.001 USDC
const CALLS = 5n
let d: TestDaemon
let hook: { url: string; got: string[]; close(): Promise<void> }
const payTo = randomAddress()

beforeAll(async () => {
  // Claimed as soon as the five calls' total is unclaimed, looked at every 200 ms.
  d = await startTestDaemon({
    flags: {
      sellerChannels: { claimEverySeconds: 0.2, claimMinUnclaimed: String(CALLS * PRICE), claimMaxAgeSeconds: 3600 },
    },
  })
  const got: string[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => (got.push(body), res.end()))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  hook = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  }
}, 120_000)
afterAll(async () => {
  await hook?.close()
  await d?.close()
})

describe('platform endpoint offering batch-settlement', () => {
  it('created with the flag, paid by the official client with one deposit, claimed and swept by the worker, one webhook', async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const seller = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
    })
    const e = await seller.createEndpoint({
      body: {
        upstreamUrl: `${d.urls.api}/api/health`,
        price: '0.001',
        network: 'local-base',
        token: 'USDC',
        payTo,
        webhookUrl: hook.url,
        batchSettlement: true,
      },
    })
    expect(e.batchSettlement).toBe(true)
    await expect(
      seller.createEndpoint({
        body: {
          upstreamUrl: `${d.urls.api}/api/health`,
          price: '0.001',
          network: 'local-base',
          token: 'PUSD',
          payTo,
          batchSettlement: true,
        },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' })

    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    const terms = decodeHeader(unpaid.headers.get('payment-required') ?? undefined) as {
      accepts: { scheme: string; extra: Record<string, unknown> }[]
    }
    expect(terms.accepts.map((a) => a.scheme)).toContain('batch-settlement')
    expect(terms.accepts.find((a) => a.scheme === 'batch-settlement')!.extra).toMatchObject({
      withdrawDelay: 900,
      receiverAuthorizer: expect.stringMatching(/^0x/),
    })

    const b = localBase(d)
    const account = await evmPayer(d, ['USDC'], '1')
    const client = x402Client.fromConfig({
      schemes: [
        {
          network: 'eip155:*',
          client: new BatchClient(toClientEvmSigner(account, b.chain.client as never), {
            depositStrategy: () => '20000',
          }),
        },
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
    const pay = wrapFetchWithPayment(fetch, client)
    expect((await pay(e.url)).status).toBe(200)
    const block = await b.chain.client.getBlockNumber()
    for (let i = 1n; i < CALLS - 1n; i++) expect((await pay(e.url)).status).toBe(200)
    // Vouchers only, and below the threshold: nothing was sent.
    expect(await b.chain.client.getBlockNumber()).toBe(block)
    expect(await b.balance('USDC', payTo)).toBe(0n)
    expect((await pay(e.url)).status).toBe(200)

    await until(
      () => b.balance('USDC', payTo),
      (v) => v === CALLS * PRICE,
      'the sweep to payTo',
    )
    expect(await b.balance('USDC', account.address)).toBe(1_000_000n - 20_000n)
    expect(await b.chain.client.getBalance({ address: account.address })).toBe(0n)
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
        protocol: 'x402',
        scheme: 'batch-settlement',
        amount: '0.005',
        channels: 1,
        token: 'USDC',
        success: true,
        transaction: expect.stringMatching(/^0x/),
        claimTransaction: expect.stringMatching(/^0x/),
      },
    })
    // A duplicate would come from a later round (claiming or sweeping the same channel again):
    // let three more rounds run, and every webhook they queued be delivered, then count.
    const scrape = async () => (await d.raw('/metrics', { headers: d.operatorHeaders() })).body as string
    const rounds = (m: string) =>
      [...m.matchAll(/^parx_channel_claim_rounds_total\{outcome="\w+"\} (\d+)$/gm)].reduce(
        (n, x) => n + Number(x[1]),
        0,
      )
    const roundsAtWebhook = rounds(await scrape())
    const m = await until(
      scrape,
      (m) => rounds(m) >= roundsAtWebhook + 3 && /^parx_webhook_queue_depth 0$/m.test(m),
      'three more claim rounds, their webhooks delivered',
      20_000,
    )
    expect(hook.got).toHaveLength(1)
    expect(m).toMatch(/^parx_channel_claims_total\{outcome="claimed"\} 1$/m)
  })
})
