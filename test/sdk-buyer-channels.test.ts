import express from 'express'
import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PayingFetchOptions, settlementOf, wrapFetchWithPayment } from '../src/sdk/x402/client/fetch.js'
import { memoryChannelStore } from '../src/sdk/x402/seller/batch-settlement/store.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { decodeHeader, encodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { hostileChannelSeller } from './helpers/hostile-channel-seller.js'
import { type OfficialSeller, officialSeller } from './helpers/official-seller.js'
import { evmPayer, localBase, randomAddress, sellerFacilitator } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * parx's paying fetch (src/sdk/x402/client/fetch.ts) with `channels`: it pays batch-settlement
 * offers by a deposit and then vouchers, and sends a path's voucher with the first request once
 * it paid there (one round trip, no 402). Against our seller middleware, and against the official
 * @x402/express seller with @x402/evm's batch-settlement server scheme (interop), both through our
 * facilitator; the buyer holds USDC and no ETH.
 */
let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let official: OfficialSeller
let account: PrivateKeyAccount
const payTo = randomAddress()
const officialPayTo = randomAddress()
const PRICE = 1000n
/** Requests the seller's handlers saw, and every request the buyer sent (paid or not). */
let handled = 0
let sent = 0
let pricedAt: '1000' | '2000' = '1000'
/** What /lying reports as the channel's balance in its PAYMENT-RESPONSE, whatever the chain holds. */
let lie = '0'

/** parx's paying fetch with channels, counting in `sent` every request it makes. */
function buyer(channels: PayingFetchOptions['channels'] = true, signer: PrivateKeyAccount = account): typeof fetch {
  const counted: typeof fetch = (input, init) => (sent++, fetch(input, init))
  return wrapFetchWithPayment(counted, { evm: { signer, clients: [localBase(d).chain.client] }, channels })
}
const receipt = (r: Response) =>
  settlementOf(r) as unknown as {
    success: boolean
    transaction: string
    extra: { chargedAmount: string; channelState: { chargedCumulativeAmount: string; balance: string } }
  }

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  const price = {
    network: 'local-base',
    asset: 'USDC',
    amount: String(PRICE),
    payTo,
    scheme: 'batch-settlement' as const,
  }
  const app = express()
  // /lying: our gate, but its settlement reports the channel's balance as `lie`.
  app.use((req, res, next) => {
    if (req.path !== '/lying') return next()
    const set = res.setHeader.bind(res)
    res.setHeader = (name, value) => {
      const settle =
        String(name).toLowerCase() === 'payment-response'
          ? decodeHeader<{ extra?: { channelState?: { balance?: string } } }>(String(value))
          : undefined
      if (settle?.extra?.channelState) settle.extra.channelState.balance = lie
      return set(name, settle ? encodeHeader(settle) : value)
    }
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      // exact first: a buyer with channels still picks the channel offer.
      routes: {
        'GET /report': { prices: [{ ...price, scheme: 'exact', method: 'eip3009' }, price] },
        'GET /broken': { prices: [price] },
        'GET /lying': { prices: [price] },
      },
    }),
  )
  // /priced: a route whose price the test changes (two gates on one channel store), as a seller re-pricing would.
  const store = memoryChannelStore()
  const gateAt = (amount: string) =>
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: { 'GET /priced': { prices: [{ ...price, amount }] } },
      channels: { store },
    })
  const priced = { '1000': gateAt('1000'), '2000': gateAt('2000') }
  app.use((req, res, next) => (req.path === '/priced' ? priced[pricedAt](req, res, next) : next()))
  app.get('/priced', (_req, res) => void res.json({ paid: pricedAt }))
  app.get('/lying', (_req, res) => void res.json({ paid: 'lying' }))
  app.get('/report', (_req, res) => void (handled++, res.json({ paid: 'batch-settlement' })))
  app.get('/broken', (_req, res) => void (handled++, res.status(500).json({ error: 'the handler failed' })))
  seller = await listen(app)
  const usdc = b.token('USDC')
  official = await officialSeller({
    facilitator: sellerFacilitator(d, officialPayTo),
    network: b.caip2 as `${string}:${string}`,
    payTo: officialPayTo,
    token: usdc,
    routes: { '/report': { amount: String(PRICE) } },
  })
  account = await evmPayer(d, ['USDC'], '10')
})
afterAll(async () => {
  await seller?.close()
  await official?.close()
  await d?.stop()
})

describe("parx's paying fetch with channels, against our seller middleware", () => {
  let pay: typeof fetch
  it('deposits once (10x the price), then pays each request by voucher sent with the request itself: no 402, no transaction', async () => {
    const b = localBase(d)
    pay = buyer()
    const first = await pay(`${seller.url}/report`)
    expect(first.status).toBe(200)
    expect(sent).toBe(2) // the 402, then the deposit
    expect(receipt(first)).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x/),
      extra: { channelState: { chargedCumulativeAmount: '1000', balance: '10000' } },
    })
    expect(await b.balance('USDC', account.address)).toBe(10_000_000n - 10n * PRICE)
    const block = await b.chain.client.getBlockNumber()
    sent = 0
    for (let i = 2; i <= 6; i++) {
      const r = await pay(`${seller.url}/report${i % 2 ? '?page=2' : ''}`)
      expect(r.status, `request ${i}`).toBe(200)
      expect(receipt(r)).toMatchObject({
        success: true,
        transaction: '',
        extra: { chargedAmount: '1000', channelState: { chargedCumulativeAmount: String(BigInt(i) * PRICE) } },
      })
    }
    expect(sent).toBe(5)
    expect(await b.chain.client.getBlockNumber()).toBe(block)
    expect(await b.chain.client.getBalance({ address: account.address })).toBe(0n)
  })

  it('a failed handler is not charged, and the next voucher is signed from the same total', async () => {
    handled = 0
    const r = await pay(`${seller.url}/broken`)
    expect(r.status).toBe(500)
    expect(handled).toBe(1)
    const next = await pay(`${seller.url}/report`)
    expect(receipt(next).extra.channelState.chargedCumulativeAmount).toBe(String(7n * PRICE))
  })

  it('a new buyer of the same key resumes from the corrective 402 without a second deposit', async () => {
    const b = localBase(d)
    const before = await b.balance('USDC', account.address)
    sent = 0
    const r = await buyer()(`${seller.url}/report`)
    expect(r.status).toBe(200)
    // Its 402, its deposit refused as off our total (corrective), its voucher from the seller's total.
    expect(sent).toBe(3)
    expect(receipt(r)).toMatchObject({
      transaction: '',
      extra: { channelState: { chargedCumulativeAmount: String(8n * PRICE) } },
    })
    expect(await b.balance('USDC', account.address)).toBe(before)
  })

  it('tops up when the channel runs short, and refuses a deposit above maxDeposit before anything is signed', async () => {
    const b = localBase(d)
    const before = await b.balance('USDC', account.address)
    // 8 of 10 spent by this channel: the wallet above holds 8, so two vouchers, then a top-up of 10x.
    for (let i = 0; i < 2; i++) expect(receipt(await pay(`${seller.url}/report`)).transaction).toBe('')
    const topUp = await pay(`${seller.url}/report`)
    expect(receipt(topUp)).toMatchObject({
      transaction: expect.stringMatching(/^0x/),
      extra: { channelState: { chargedCumulativeAmount: String(11n * PRICE), balance: '20000' } },
    })
    expect(await b.balance('USDC', account.address)).toBe(before - 10n * PRICE)
    const other = await evmPayer(d, ['USDC'], '1')
    const capped = buyer({ maxDeposit: PRICE - 1n }, other)
    await expect(capped(`${seller.url}/report`)).rejects.toThrow(
      /above this buyer's maxDeposit of 999; nothing was paid/,
    )
    expect(await b.balance('USDC', other.address)).toBe(1_000_000n)
  })

  it('a path whose price changed refuses the remembered voucher with a 402, and is paid afresh at the new price', async () => {
    const other = await evmPayer(d, ['USDC'], '1')
    const pay = buyer(true, other)
    for (let i = 0; i < 2; i++) expect((await pay(`${seller.url}/priced`)).status).toBe(200)
    pricedAt = '2000'
    sent = 0
    const r = await pay(`${seller.url}/priced`)
    expect(await r.json()).toEqual({ paid: '2000' })
    // The remembered voucher (refused: the seller offers other terms now), then the voucher for the new price.
    expect(sent).toBe(2)
    expect(receipt(r)).toMatchObject({
      transaction: '',
      extra: { chargedAmount: '2000', channelState: { chargedCumulativeAmount: '4000' } },
    })
    sent = 0
    expect(receipt(await pay(`${seller.url}/priced`)).extra.channelState.chargedCumulativeAmount).toBe('6000')
    expect(sent).toBe(1)
  })
})

describe("parx's paying fetch with channels, against the official batch-settlement seller", () => {
  it('deposits, pays 5 vouchers with no 402, and the official channel manager claims and settles exactly what was charged', async () => {
    const b = localBase(d)
    const payer = await evmPayer(d, ['USDC'], '1')
    const pay = buyer({ depositMultiplier: 20 }, payer)
    expect((await pay(`${official.url}/report`)).status).toBe(200)
    sent = 0
    for (let i = 0; i < 5; i++) expect((await pay(`${official.url}/report`)).status).toBe(200)
    expect(sent).toBe(5)
    await official.manager.claimAndSettle()
    expect(await b.balance('USDC', officialPayTo)).toBe(6n * PRICE)
    expect(await b.balance('USDC', payer.address as Address)).toBe(1_000_000n - 20n * PRICE)
    expect(await b.chain.client.getBalance({ address: payer.address })).toBe(0n)
  })
})

describe("parx's paying fetch with channels, against hostile sellers", () => {
  const hostile = async (delays: number[], minDeposit?: bigint) => {
    const b = localBase(d)
    return hostileChannelSeller({
      network: b.caip2,
      token: b.token('USDC'),
      payTo: randomAddress(),
      receiverAuthorizer: randomAddress(),
      price: PRICE,
      delays,
      ...(minDeposit !== undefined ? { minDeposit } : {}),
    })
  }

  it('a seller asking a minDeposit of 250 USDC valid a year, its withdraw delay rotating up to 30 days: refused, nothing signed', async () => {
    const s = await hostile([900, 901, 30 * 86_400], 250_000_000n)
    try {
      const payer = await evmPayer(d, ['USDC'], '1')
      const pay = buyer(true, payer)
      for (let i = 0; i < 3; i++) {
        await expect(pay(`${s.url}/report`)).rejects.toMatchObject({
          code: 'CHANNEL_TERMS_REFUSED',
          message: expect.stringMatching(
            /(minDeposit of 250000000 base units, above this buyer's maxDeposit of 5000000|withdrawDelay of 2592000 s, above this buyer's maxWithdrawDelay of 86400 s)/,
          ),
        })
      }
      expect(s.offers).toBe(3)
      expect(s.kept).toEqual([])
      expect(await localBase(d).balance('USDC', payer.address)).toBe(1_000_000n)
    } finally {
      await s.close()
    }
  })

  it('a withdraw delay rotating on every 402: each deposit signed stays within the defaults (10x the price, 300 s, a day), one longer is refused', async () => {
    const s = await hostile([900, 86_400, 2 * 86_400, 1800], 500_000n)
    try {
      const payer = await evmPayer(d, ['USDC'], '1')
      const pay = buyer(true, payer)
      const statuses = []
      for (let i = 0; i < 4; i++)
        statuses.push(
          await pay(`${s.url}/report`).then(
            (r) => r.status,
            (e: { code: string }) => e.code,
          ),
        )
      expect(statuses).toEqual([402, 402, 'CHANNEL_TERMS_REFUSED', 402])
      expect(s.kept).toHaveLength(3)
      for (const k of s.kept) {
        const p = k.payload.payload
        expect(p.type).toBe('deposit')
        // The seller's minDeposit (above 10x the price), far below maxDeposit.
        expect(p.deposit.amount).toBe('500000')
        expect(Number(p.deposit.authorization.erc3009Authorization.validBefore) - k.at).toBeLessThanOrEqual(301)
        expect(p.channelConfig.withdrawDelay).toBeLessThanOrEqual(86_400)
      }
      expect(s.kept.map((k) => k.payload.payload.channelConfig.withdrawDelay)).toEqual([900, 86_400, 1800])
      expect(await localBase(d).balance('USDC', payer.address)).toBe(1_000_000n)
    } finally {
      await s.close()
    }
  })

  it('a seller reporting a false channel balance: no second deposit when it says 0, a top-up when it says plenty but the chain is spent', async () => {
    const b = localBase(d)
    const payer = await evmPayer(d, ['USDC'], '1')
    const pay = buyer(true, payer)
    lie = '0'
    const first = await pay(`${seller.url}/lying`)
    expect(receipt(first)).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x/),
      extra: { channelState: { balance: '0' } },
    })
    for (let i = 2; i <= 5; i++) expect(receipt(await pay(`${seller.url}/lying`)).transaction, `request ${i}`).toBe('')
    expect(await b.balance('USDC', payer.address)).toBe(1_000_000n - 10n * PRICE)
    // Now it claims a fortune: the tenth voucher spends the deposit, the eleventh tops up from what the chain says.
    lie = '999000000000'
    for (let i = 6; i <= 10; i++) expect(receipt(await pay(`${seller.url}/lying`)).transaction, `request ${i}`).toBe('')
    const topUp = await pay(`${seller.url}/lying`)
    expect(topUp.status).toBe(200)
    expect(receipt(topUp)).toMatchObject({
      transaction: expect.stringMatching(/^0x/),
      extra: { channelState: { chargedCumulativeAmount: String(11n * PRICE) } },
    })
    expect(await b.balance('USDC', payer.address)).toBe(1_000_000n - 20n * PRICE)
  })
})
