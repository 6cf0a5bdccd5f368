import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type ChannelConfig, channelIdOf, voucherTypedData } from '../../evm/batch-settlement/contracts.js'
import { reasons } from '../../reasons.js'
import { decodeHeader, encodeHeader } from '../../wire.js'
import { paymentGate } from '../middleware.js'
import { settleAmount } from '../usage.js'
import { type ChannelStore, memoryChannelStore } from './store.js'

/**
 * The batch-settlement gate over HTTP with a channel whose mirror is fresh (so vouchers are
 * checked here) and a facilitator that must not be asked: the state transitions a request makes
 * (reserve, commit after a handler that succeeded, release after one that failed), two vouchers
 * for the same increment at once, a usage charge, and the corrective 402's wire shape.
 */
const CHAIN = 31337
const NETWORK = `eip155:${CHAIN}`
const ASSET = '0x00000000000000000000000000000000000000d4'
const AUTHORIZER = '0x00000000000000000000000000000000000000c3'
const PAY_TO = '0x00000000000000000000000000000000000000b2'
const PRICE = 1000n
const payer = privateKeyToAccount(generatePrivateKey())
const config: ChannelConfig = {
  payer: payer.address,
  payerAuthorizer: payer.address,
  receiver: PAY_TO,
  receiverAuthorizer: AUTHORIZER,
  token: ASSET,
  withdrawDelay: 900,
  salt: `0x${'00'.repeat(32)}`,
}
const channelId = channelIdOf(config, CHAIN)
const offer = {
  scheme: 'batch-settlement',
  network: NETWORK,
  asset: ASSET,
  amount: String(PRICE),
  payTo: PAY_TO,
  maxTimeoutSeconds: 120,
  extra: { name: 'USD Coin', version: '2', receiverAuthorizer: AUTHORIZER, withdrawDelay: 900 },
}
const supported = {
  kinds: [
    {
      x402Version: 2,
      scheme: 'batch-settlement',
      network: NETWORK,
      extra: {
        asset: ASSET,
        symbol: 'USDC',
        name: 'USD Coin',
        version: '2',
        decimals: 6,
        receiverAuthorizer: AUTHORIZER,
      },
    },
  ],
  extensions: [],
  signers: {},
}

let store: ChannelStore
let server: Server
let url: string
const facilitatorCalls: string[] = []
/** Requests to /slow tell `slowEntered` and wait until `releaseSlow` is called. */
let releaseSlow: () => void = () => {}
let slowEntered: () => void = () => {}

beforeAll(async () => {
  const facilitatorFetch = (async (u: string) => {
    const path = new URL(u).pathname
    if (path.endsWith('/supported')) return new Response(JSON.stringify(supported))
    facilitatorCalls.push(path)
    return new Response(JSON.stringify({ isValid: false, invalidReason: 'not expected' }))
  }) as unknown as typeof fetch
  const route = {
    prices: [
      { network: NETWORK, asset: 'USDC', amount: String(PRICE), payTo: PAY_TO, scheme: 'batch-settlement' as const },
    ],
  }
  const gate = paymentGate({
    facilitator: { url: 'http://facilitator.test', fetch: facilitatorFetch },
    routes: { '/ok': route, '/slow': route, '/fail': route, '/metered': route },
    // Each case starts from a fresh store behind the one the gate was given.
    channels: { store: new Proxy({} as ChannelStore, { get: (_, k) => store[k as keyof ChannelStore] }) },
  })
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void gate(req, res, async () => {
      if (req.url === '/fail') return void ((res.statusCode = 503), res.end('down'))
      if (req.url === '/slow') await new Promise<void>((r) => ((releaseSlow = r), slowEntered()))
      if (req.url === '/metered') settleAmount(res, '250')
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

beforeEach(async () => {
  store = memoryChannelStore()
  facilitatorCalls.length = 0
  // A channel after its deposit: 2000 charged, balance 30000, mirror read just now.
  const now = Date.now()
  await store.reserve({
    now,
    expectedCharged: '0',
    record: {
      channelId,
      network: NETWORK,
      config,
      chargedCumulativeAmount: '2000',
      signedMaxClaimable: '2000',
      signature: await sign(2000n),
      balance: '30000',
      totalClaimed: '0',
      withdrawRequestedAt: 0,
      refundNonce: '0',
      syncedAt: now,
      lastRequestAt: now,
      pendingId: 'p',
      pendingExpiresAt: now + 1000,
      tag: null,
    },
  })
  await store.commit(channelId, 'p', {})
})

async function sign(amount: bigint) {
  return payer.signTypedData(voucherTypedData(CHAIN, channelId, amount))
}
async function pay(path: string, cumulative: bigint) {
  const payment = {
    x402Version: 2,
    accepted: offer,
    payload: {
      type: 'voucher',
      channelConfig: config,
      voucher: { channelId, maxClaimableAmount: String(cumulative), signature: await sign(cumulative) },
    },
  }
  const r = await fetch(`${url}${path}`, { headers: { 'PAYMENT-SIGNATURE': encodeHeader(payment) } })
  return {
    status: r.status,
    body: await r.text(),
    required: decodeHeader<any>(r.headers.get('payment-required')),
    receipt: decodeHeader<any>(r.headers.get('payment-response')),
  }
}
const charged = async () => (await store.get(channelId))!.chargedCumulativeAmount

describe('batch-settlement in the payment gate', () => {
  it('a voucher for the charged total plus the price is checked locally and committed after the handler', async () => {
    const r = await pay('/ok', 3000n)
    expect(r).toMatchObject({
      status: 200,
      body: 'ok',
      receipt: {
        success: true,
        transaction: '',
        network: NETWORK,
        extra: {
          chargedAmount: '1000',
          channelState: { channelId, balance: '30000', chargedCumulativeAmount: '3000' },
        },
      },
    })
    expect(await store.get(channelId)).toMatchObject({
      chargedCumulativeAmount: '3000',
      signedMaxClaimable: '3000',
      pendingId: null,
    })
    expect(facilitatorCalls).toEqual([])
  })

  it('two vouchers for the same increment at once: one is served and charged, the other is refused busy', async () => {
    const entered = new Promise<void>((r) => (slowEntered = r))
    const first = pay('/slow', 3000n)
    await entered // the first holds the channel: its handler is running
    const second = await pay('/ok', 3000n)
    expect(second.status).toBe(402)
    expect(second.required.error).toBe(reasons.batchChannelBusy)
    releaseSlow()
    expect((await first).status).toBe(200)
    expect(await charged()).toBe('3000')
    // The same voucher again is now behind our total: the corrective 402.
    expect((await pay('/ok', 3000n)).required.error).toBe(reasons.batchCumulativeAmountMismatch)
  })

  it('a failed handler is not charged and leaves the channel free', async () => {
    const r = await pay('/fail', 3000n)
    expect(r.status).toBe(503)
    expect(r.receipt).toBeUndefined()
    expect(await store.get(channelId)).toMatchObject({ chargedCumulativeAmount: '2000', pendingId: null })
    expect((await pay('/ok', 3000n)).status).toBe(200)
  })

  it('a usage charge below the price: the total grows by what was used, the next voucher builds on it', async () => {
    const r = await pay('/metered', 3000n)
    expect(r.receipt.extra).toMatchObject({ chargedAmount: '250', channelState: { chargedCumulativeAmount: '2250' } })
    expect(await store.get(channelId)).toMatchObject({ chargedCumulativeAmount: '2250', signedMaxClaimable: '3000' })
    expect((await pay('/ok', 3250n)).status).toBe(200)
  })

  it('a drifted voucher gets the corrective 402 with our state and the last voucher, in the reference wording', async () => {
    const r = await pay('/ok', 1000n)
    expect(r.status).toBe(402)
    expect(r.required.error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch')
    const extra = r.required.accepts.find((a: { scheme: string }) => a.scheme === 'batch-settlement').extra
    expect(extra).toMatchObject({
      receiverAuthorizer: AUTHORIZER,
      withdrawDelay: 900,
      channelState: {
        channelId,
        balance: '30000',
        totalClaimed: '0',
        withdrawRequestedAt: 0,
        refundNonce: '0',
        chargedCumulativeAmount: '2000',
      },
      voucherState: { signedMaxClaimable: '2000', signature: await sign(2000n) },
    })
    expect(await store.get(channelId)).toMatchObject({ chargedCumulativeAmount: '2000', pendingId: null })
  })

  it('a voucher above the balance or signed by another key is refused with the spec reason, nothing charged', async () => {
    await store.reserve({
      now: Date.now(),
      expectedCharged: '2000',
      record: { ...(await store.get(channelId))!, pendingId: 'q', pendingExpiresAt: Date.now() + 1000 },
    })
    await store.commit(channelId, 'q', { chargedCumulativeAmount: '29500' })
    expect((await pay('/ok', 30_500n)).required.error).toBe(reasons.batchCumulativeExceedsBalance)
    const payment = {
      x402Version: 2,
      accepted: offer,
      payload: {
        type: 'voucher',
        channelConfig: config,
        voucher: {
          channelId,
          maxClaimableAmount: '30500',
          signature: await privateKeyToAccount(generatePrivateKey()).signTypedData(
            voucherTypedData(CHAIN, channelId, 30_500n),
          ),
        },
      },
    }
    const r = await fetch(`${url}/ok`, { headers: { 'PAYMENT-SIGNATURE': encodeHeader(payment) } })
    expect(decodeHeader<any>(r.headers.get('payment-required')).error).toBe(reasons.batchVoucherSignature)
    expect(await charged()).toBe('29500')
    expect(facilitatorCalls).toEqual([])
  })
})
