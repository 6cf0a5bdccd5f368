import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BatchSettlementChannelManager } from '@x402/evm/batch-settlement/server'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as X402BatchSettlement from '../contracts/evm/artifacts/X402BatchSettlement.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { verifyReceipt } from '../src/sdk/platform/receipt-verify.js'
import { BATCH_SETTLEMENT_ADDRESS } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { encodeHeader } from '../src/sdk/x402/wire.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { hostileChannelSeller } from './helpers/hostile-channel-seller.js'
import { type OfficialSeller, officialSeller } from './helpers/official-seller.js'
import { localBase, randomAddress, sellerFacilitator } from './helpers/x402.js'

/**
 * Issue 27 item 4, the buyer half: an agent's pay through an x402 batch-settlement channel, against
 * the OFFICIAL @x402/express seller with the official batch-settlement server scheme and channel
 * manager, through our facilitator. The first pay deposits (10x the price, counted against the
 * limits), the next ones send vouchers only (no block mined), the per-payment and daily limits
 * refuse a voucher, `parx channels list|refund` show the channel and return the unspent deposit
 * on chain, and a seller naming a bogus contract is refused before anything is signed.
 */
const PRICE = 1000n // 0.001 USDC
let d: TestDaemon
let user: PlatformClient
let userKey: string
let agentId: string
let agentKey: string
let wallet: Address
let seller: OfficialSeller
let manager: BatchSettlementChannelManager
let bogus: Server
let bogusUrl: string
const payTo = randomAddress()
const tmp = mkdtempSync(join(tmpdir(), 'parx-channels-'))

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  const usdc = b.token('USDC')
  const network = b.caip2 as `${string}:${string}`
  // /usage is usage-priced: the price is the most a request may cost; each charges a quarter of it.
  seller = await officialSeller({
    facilitator: sellerFacilitator(d, payTo),
    network,
    payTo,
    token: usdc,
    routes: {
      '/report': { amount: PRICE.toString() },
      '/usage': { amount: PRICE.toString(), charge: String(PRICE / 4n) },
    },
  })
  manager = seller.manager

  // A seller whose batch-settlement offer names another contract as the one to deposit into.
  bogus = createServer((_req, res) => {
    const accepts = [
      {
        scheme: 'batch-settlement',
        network,
        asset: usdc.address,
        amount: PRICE.toString(),
        payTo,
        maxTimeoutSeconds: 60,
        extra: {
          name: usdc.name,
          version: usdc.version,
          receiverAuthorizer: randomAddress(),
          withdrawDelay: 900,
          verifyingContract: randomAddress(),
        },
      },
    ]
    res
      .writeHead(402, { 'payment-required': encodeHeader({ x402Version: 2, resource: { url: bogusUrl }, accepts }) })
      .end('{}')
  })
  await new Promise<void>((r) => bogus.listen(0, '127.0.0.1', r))
  bogusUrl = `http://127.0.0.1:${(bogus.address() as { port: number }).port}/report`

  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  userKey = (await op.createUser({ body: { name: 'channels' } })).userKey
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  agentId = a.id
  wallet = a.wallet as Address
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: wallet, token: 'USDC', amount: '5' } })
  await user.setLimits({ params: { id: agentId }, body: { dailyUsd: '1', perPaymentUsd: '0.002' } })
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await new Promise((r) => bogus?.close(r))
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

const pay = (url = `${seller.url}/report`, extra: { maxAmount?: string } = {}) =>
  d.raw(`/api/agents/${agentId}/pay`, {
    method: 'POST',
    headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url, ...extra }),
  })
const spent = async () => (await user.getLimits({ params: { id: agentId } })).spentTodayUsd
const usdc = () => localBase(d).balance('USDC', wallet)
const parx = (args: string[]) =>
  runParx(d.urls.api, ['-o', 'json', ...args], {
    PARX_AGENTS_URL: d.urls.platform,
    PARX_AGENT_KEY: agentKey,
    PARX_AGENT_ID: agentId,
    PARX_USER_KEY: '',
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    NO_COLOR: '1',
  })

describe('pay through an x402 batch-settlement channel (official seller, our facilitator)', () => {
  let channelId: string

  it('the first pay deposits 10x the price once, counted against the limits like a payment', async () => {
    const r = await pay()
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(JSON.parse(r.body.body)).toEqual({ paid: 'batch-settlement' })
    expect(r.body.receipt).toMatchObject({
      amount: '0.001',
      token: 'USDC',
      protocol: 'x402-v2',
      channel: { cumulative: '0.001', deposited: '0.01' },
    })
    expect(r.body.receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    channelId = r.body.receipt.channel.id
    expect(await usdc()).toBe(5_000_000n - 10n * PRICE)
    expect(await spent()).toBe('0.01')
  })

  it('the next pays send vouchers only: no transaction, no block, the deposit still what counts', async () => {
    const block = await d.services.base.client.getBlockNumber()
    for (let i = 2; i <= 6; i++) {
      const r = await pay()
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.receipt).toMatchObject({
        amount: '0.001',
        transaction: null,
        channel: { id: channelId, cumulative: `0.00${i}` },
      })
      expect(r.body.receipt.channel.deposited).toBeUndefined()
      // The platform's signed receipt names the voucher (channel and signed cumulative, base units) in place of a transaction.
      const signed = r.body.receipt.signed
      expect(signed.message).toMatchObject({
        transaction: `batch-settlement:${channelId.toLowerCase()}:${BigInt(i) * PRICE}`,
        amount: String(PRICE),
        payTo: r.body.receipt.payTo,
        symbol: 'USDC',
      })
      expect(
        await verifyReceipt(signed, { signer: privateKeyToAccount(d.services.keys.receipt!).address }),
      ).toMatchObject({ valid: true })
    }
    expect(await d.services.base.client.getBlockNumber()).toBe(block)
    expect(await usdc()).toBe(5_000_000n - 10n * PRICE)
    expect(await spent()).toBe('0.01')
  })

  it('a per-payment or daily limit refuses a voucher that would exceed it, before anything is signed', async () => {
    // Above maxAmount through a channel: the same refusal and fields as a per-request pay.
    const max = await pay(undefined, { maxAmount: '0.0009' })
    expect([max.status, max.body]).toMatchObject([
      409,
      { code: 'PRICE_ABOVE_MAX', maxAmount: '0.0009', amount: '0.001', token: 'USDC' },
    ])
    await user.setLimits({ params: { id: agentId }, body: { perPaymentUsd: '0.0005' } })
    const perPayment = await pay()
    expect(perPayment.status).toBe(403)
    expect(perPayment.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'perPayment' })
    // 0.006 charged through vouchers today: a daily limit of 0.0065 leaves no room for a seventh.
    await user.setLimits({ params: { id: agentId }, body: { perPaymentUsd: null, dailyUsd: '0.0065' } })
    const daily = await pay()
    expect(daily.status).toBe(403)
    expect(daily.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'day' })
    await user.setLimits({ params: { id: agentId }, body: { dailyUsd: '1' } })
    const list = await user.listChannels({ params: { id: agentId } })
    expect(list.channels[0]).toMatchObject({ charged: '0.006', signed: '0.006' })
  })

  it('budgets per window (issue 41 item 1): a deposit is sized to fill the window exactly, and refused by a window below the price', async () => {
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      const a = await user.createAgent({ body: { name: `window-${w}`, network: 'local-base' } })
      await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '1' } })
      const payAs = () =>
        d.raw(`/api/agents/${a.id}/pay`, {
          method: 'POST',
          headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${seller.url}/report` }),
        })
      // Below the price: the deposit the seller needs does not fit; refused before anything is signed.
      await user.setLimits({ params: { id: a.id }, body: { [field]: '0.0009' } })
      const refused = await payAs()
      expect([refused.status, refused.body], w).toMatchObject([
        403,
        {
          code: 'LIMIT_EXCEEDED',
          limit: w,
          scope: 'agent',
          limitUsd: '0.0009',
          amountUsd: '0.001',
          remainingUsd: '0.0009',
        },
      ])
      expect(await localBase(d).balance('USDC', a.wallet as Address), w).toBe(1_000_000n)
      // Four prices of room: the deposit is those four (not ten), and the window is then exactly full.
      await user.setLimits({ params: { id: a.id }, body: { [field]: '0.004' } })
      const ok = await payAs()
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
      expect(ok.body.receipt.channel.deposited, w).toBe('0.004')
      const l = await user.getLimits({ params: { id: a.id } })
      expect(l.windows[w], w).toEqual({ limitUsd: '0.004', spentUsd: '0.004', remainingUsd: '0' })
    }
  }, 120_000)

  it("budgets per window (issue 41 item 1): each of the user's windows sizes a deposit to fill it exactly, across its agents, and refuses the next agent's", async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      const key = (await op.createUser({ body: { name: `channels-${w}` } })).userKey
      const owner = createPlatformClient({ url: d.urls.platform, userKey: key })
      await owner.setUserLimits({ body: { [field]: '0.004' } })
      const [one, two] = await Promise.all(
        ['one', 'two'].map(async (name) => {
          const a = await owner.createAgent({ body: { name, network: 'local-base' } })
          await d.call('/api/local/faucet', {
            body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '1' },
          })
          return a
        }),
      )
      const payAs = (id: string) =>
        d.raw(`/api/agents/${id}/pay`, {
          method: 'POST',
          headers: { 'x-user-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${seller.url}/report` }),
        })
      // The user's window has four prices of room: the first agent's deposit is those four, and the window is full.
      const ok = await payAs(one!.id)
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
      expect(ok.body.receipt.channel.deposited, w).toBe('0.004')
      const refused = await payAs(two!.id)
      expect([refused.status, refused.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'user', limitUsd: '0.004', remainingUsd: '0' },
      ])
      expect(await localBase(d).balance('USDC', two!.wallet as Address), w).toBe(1_000_000n)
      expect((await owner.listChannels({ params: { id: two!.id } })).channels, w).toEqual([])
    }
  }, 180_000)

  it('parx channels list shows the channel; parx channels refund returns the unspent deposit on chain', async () => {
    const listed = await parx(['channels', 'list'])
    expect(listed.code, listed.err).toBe(0)
    expect(JSON.parse(listed.out)).toEqual({
      channels: [
        expect.objectContaining({
          id: channelId,
          network: 'local-base',
          token: 'USDC',
          receiver: payTo,
          deposited: '0.01',
          charged: '0.006',
          refunded: '0',
          unspent: '0.004',
          pendingDeposit: null,
          withdrawDelaySeconds: 900,
        }),
      ],
    })
    const refunded = await parx(['channels', 'refund', channelId])
    expect(refunded.code, refunded.err + refunded.out).toBe(0)
    expect(JSON.parse(refunded.out)).toMatchObject({
      refunded: '0.004',
      token: 'USDC',
      channel: { unspent: '0', refunded: '0.004' },
    })
    expect(await usdc()).toBe(5_000_000n - 6n * PRICE)
    expect(await spent()).toBe('0.006')
    // The refund claimed the six vouchers first (the official server does); the seller's sweep pays out exactly what the agent was charged.
    await manager.settle()
    expect(await localBase(d).balance('USDC', payTo)).toBe(6n * PRICE)
    expect(await usdc()).toBe(5_000_000n - 6n * PRICE)
  })

  it('after the refund the next pay tops the channel up; a usage-priced request counts what was charged; a lost charge is corrected by the corrective 402', async () => {
    const topUp = await pay()
    expect(topUp.status, JSON.stringify(topUp.body)).toBe(200)
    expect(topUp.body.receipt).toMatchObject({ channel: { id: channelId, cumulative: '0.007', deposited: '0.01' } })
    expect(await usdc()).toBe(5_000_000n - 6n * PRICE - 10n * PRICE)
    expect(await spent()).toBe('0.016')

    const usage = await pay(`${seller.url}/usage`)
    expect(usage.status, JSON.stringify(usage.body)).toBe(200)
    expect(usage.body.receipt).toMatchObject({
      amount: '0.00025',
      transaction: null,
      channel: { id: channelId, cumulative: '0.00725' },
    })
    expect((await user.listPayments({ params: { id: agentId }, query: { limit: '1' } })).payments[0]).toMatchObject({
      kind: 'pay',
      state: 'confirmed',
      amount: '0.00025',
    })
    expect(await spent()).toBe('0.016')

    // As after a crash between the seller's answer and our write: the store is one charge behind the seller.
    await d.services.store.db
      .updateTable('platform_pay_channels')
      .set({ charged: '6250' })
      .where('id', '=', channelId)
      .execute()
    const block = await d.services.base.client.getBlockNumber()
    const resynced = await pay()
    expect(resynced.status, JSON.stringify(resynced.body)).toBe(200)
    expect(resynced.body.receipt).toMatchObject({
      transaction: null,
      channel: { id: channelId, cumulative: '0.00825' },
    })
    expect(await d.services.base.client.getBlockNumber()).toBe(block)
    expect((await user.listChannels({ params: { id: agentId } })).channels[0]).toMatchObject({
      charged: '0.00825',
      signed: '0.00825',
      deposited: '0.02',
      refunded: '0.004',
    })
  })

  it('a seller naming another contract than the canonical one is refused, nothing signed', async () => {
    const before = await spent()
    const r = await pay(bogusUrl)
    expect(r.status).toBe(502)
    expect(r.body).toMatchObject({ code: 'CHANNEL_TERMS_REFUSED' })
    expect(r.body.error).toContain(BATCH_SETTLEMENT_ADDRESS)
    expect(await spent()).toBe(before)
  })

  it('an agent pays a platform endpoint offering batch-settlement through a channel: one deposit, then vouchers only', async () => {
    const endpointPayTo = randomAddress()
    const before = await usdc()
    const micros = async () => Math.round(Number(await spent()) * 1e6)
    const spentBefore = await micros()
    const e = await user.createEndpoint({
      body: {
        upstreamUrl: `${d.urls.api}/api/health`,
        price: '0.001',
        network: 'local-base',
        token: 'USDC',
        payTo: endpointPayTo,
        batchSettlement: true,
      },
    })
    const first = await pay(e.url)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.receipt).toMatchObject({
      amount: '0.001',
      payTo: endpointPayTo,
      channel: { cumulative: '0.001', deposited: '0.01' },
    })
    const block = await d.services.base.client.getBlockNumber()
    for (let i = 2; i <= 3; i++) {
      const r = await pay(e.url)
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.receipt).toMatchObject({
        transaction: null,
        channel: { id: first.body.receipt.channel.id, cumulative: `0.00${i}` },
      })
    }
    expect(await d.services.base.client.getBlockNumber()).toBe(block)
    // Our record loses the deposit (as a lost write would): the chain, read before depositing, still holds it, so no second deposit.
    const id = first.body.receipt.channel.id as string
    await d.services.store.db
      .updateTable('platform_pay_channels')
      .set({ deposited: '0' })
      .where('id', '=', id)
      .execute()
    const fourth = await pay(e.url)
    expect(fourth.status, JSON.stringify(fourth.body)).toBe(200)
    expect(fourth.body.receipt).toMatchObject({ transaction: null, channel: { id, cumulative: '0.004' } })
    expect(fourth.body.receipt.channel.deposited).toBeUndefined()
    expect((await user.listChannels({ params: { id: agentId } })).channels.find((c) => c.id === id)).toMatchObject({
      deposited: '0.01',
    })
    expect(await d.services.base.client.getBlockNumber()).toBe(block)
    expect(await usdc()).toBe(before - 10n * PRICE)
    // The deposit counts; the vouchers drawn on it do not count again.
    expect(await micros()).toBe(spentBefore + 10_000)
    // payTo a bare address: the platform does not hold it, so it does not ask our authorizer's refund as its receiver.
    const balance = await usdc()
    await expect(
      user.refundChannel({ params: { id: agentId, channelId: first.body.receipt.channel.id } }),
    ).rejects.toMatchObject({ code: 'CHANNEL_REFUND_REFUSED' })
    expect(await usdc()).toBe(balance)
  })

  it("the agent refunds its channel to a platform endpoint paying one of the user's agents: the unspent deposit comes back on chain exactly", async () => {
    const receiver = await user.createAgent({ body: { name: 'seller', network: 'local-base' } })
    const e = await user.createEndpoint({
      body: {
        upstreamUrl: `${d.urls.api}/api/health`,
        price: '0.001',
        network: 'local-base',
        token: 'USDC',
        payTo: receiver.id,
        batchSettlement: true,
      },
    })
    const before = await usdc()
    let channelId = ''
    for (let i = 1; i <= 3; i++) {
      const r = await pay(e.url)
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      channelId = r.body.receipt.channel.id
    }
    expect(await usdc()).toBe(before - 10n * PRICE)
    const refunded = await user.refundChannel({ params: { id: agentId, channelId } })
    expect(refunded).toMatchObject({
      refunded: '0.007',
      token: 'USDC',
      channel: { unspent: '0', refunded: '0.007', charged: '0.003' },
    })
    expect(await usdc()).toBe(before - 3n * PRICE)
  })

  it('parx channels withdraw takes the deposit back without the seller: started on chain, refused before the delay, finalized after it less what the seller claimed meanwhile', async () => {
    // The first channel: 0.02 deposited, 0.004 refunded, 0.00825 charged, of which the seller claimed 0.006 with the refund.
    const before = await usdc()
    const spentBefore = Math.round(Number(await spent()) * 1e6)
    const escrow = async () =>
      (
        await d.services.store.db
          .selectFrom('platform_spends')
          .select('amount_micros')
          .where('channel_id' as never, '=', channelId as never)
          .where('channel_role' as never, '=', 'deposit' as never)
          .where('state', '!=', 'released')
          .execute()
      ).reduce((a, r) => a + Number(r.amount_micros), 0)
    const escrowBefore = await escrow()
    expect(escrowBefore).toBe(6750)
    const started = await parx(['channels', 'withdraw', channelId])
    expect(started.code, started.err + started.out).toBe(0)
    // Everything the chain says is unclaimed: balance 0.016 less claimed 0.006.
    expect(JSON.parse(started.out)).toMatchObject({
      state: 'initiated',
      amount: '0.01',
      withdrawn: '0',
      token: 'USDC',
      channel: { id: channelId, withdrawal: { amount: '0.01' } },
    })
    const [asked, initiatedAt] = (await d.services.base.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: X402BatchSettlement.abi,
      functionName: 'pendingWithdrawals',
      args: [channelId as Hex],
    })) as readonly [bigint, number]
    expect(asked).toBe(10n * PRICE)
    expect(initiatedAt).toBeGreaterThan(0)
    expect(await usdc()).toBe(before)

    // No voucher on a channel being withdrawn, and no finalizing before the delay.
    const refusedPay = await pay()
    expect(refusedPay.status).toBe(409)
    expect(refusedPay.body).toMatchObject({ code: 'CHANNEL_WITHDRAW_PENDING', charged: false })
    const early = await user.withdrawChannel({ params: { id: agentId, channelId } }).catch((e: unknown) => e)
    expect(early).toMatchObject({ code: 'CHANNEL_WITHDRAW_PENDING', status: 409 })
    expect((early as Error).message).toContain('can be finalized from')

    // The seller claims the 0.00225 it charged and had not claimed yet, during the delay; then the delay passes.
    await manager.claim()
    await d.services.base.client.request({ method: 'evm_increaseTime' as never, params: [901] as never })
    await d.services.base.client.request({ method: 'evm_mine' as never, params: [] as never })
    const done = await parx(['channels', 'withdraw', channelId])
    expect(done.code, done.err + done.out).toBe(0)
    expect(JSON.parse(done.out)).toMatchObject({
      state: 'finalized',
      amount: '0.01',
      withdrawn: '0.00775',
      channel: { withdrawal: null, withdrawn: '0.00775', unspent: '0' },
    })
    expect(await usdc()).toBe(before + 7750n)
    // What came back stops counting, as a refund does: the deposit's escrow rows are emptied (the
    // lost write simulated above recorded one 0.001 charge twice, so they held 0.00675, not 0.00775).
    expect(await escrow()).toBe(0)
    expect(Math.round(Number(await spent()) * 1e6)).toBe(spentBefore - escrowBefore)
  })
})

describe('pay against a hostile batch-settlement seller (issue 39 item 3): an agent with a 0.01 per-payment limit', () => {
  const CENT = 10_000n
  const hostile = (delays: number[], minDeposit?: bigint) => {
    const b = localBase(d)
    return hostileChannelSeller({
      network: b.caip2,
      token: b.token('USDC'),
      payTo: randomAddress(),
      receiverAuthorizer: randomAddress(),
      price: CENT,
      delays,
      ...(minDeposit !== undefined ? { minDeposit } : {}),
    })
  }
  const payAs = (id: string, url: string) =>
    d.raw(`/api/agents/${id}/pay`, {
      method: 'POST',
      headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    })
  const newAgent = async () => {
    const a = await user.createAgent({ body: { name: 'hostile-buyer', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '5' } })
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.01', dailyUsd: '1' } })
    return a
  }

  it('a minDeposit of 250 USDC valid a year is refused before anything is signed, whatever the withdraw delay', async () => {
    const s = await hostile([900, 901, 902], 250_000_000n)
    try {
      const a = await newAgent()
      for (let i = 0; i < 3; i++) {
        const r = await payAs(a.id, `${s.url}/report`)
        expect(r.status).toBe(502)
        expect(r.body).toMatchObject({
          code: 'CHANNEL_TERMS_REFUSED',
          error: expect.stringContaining('minDeposit of 250 USDC, above the platform'),
        })
      }
      expect(s.kept).toEqual([])
      expect((await user.listChannels({ params: { id: a.id } })).channels).toEqual([])
      expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
    } finally {
      await s.close()
    }
  })

  it('a withdraw delay rotating on every 402 gets one channel and one deposit within the limits: then CHANNEL_TERMS_CHANGED, and a delay above a day is refused', async () => {
    const s = await hostile([900, 901, 902, 30 * 86_400])
    try {
      const a = await newAgent()
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(await payAs(a.id, `${s.url}/report`))
      expect(answers.map((r) => r.body.code)).toEqual([
        'PAYMENT_REFUSED',
        'CHANNEL_TERMS_CHANGED',
        'CHANNEL_TERMS_CHANGED',
        'CHANNEL_TERMS_REFUSED',
      ])
      expect(answers[1]!.status).toBe(409)
      expect(answers[1]!.body).toMatchObject({
        charged: false,
        transaction: null,
        channelId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      })
      expect(answers[3]!.body.error).toContain('withdrawDelay of 2592000 s, above the platform')
      // One deposit signed: 10x the price, valid pay.validitySeconds (300 s) at most though the seller asked a year, on the first delay.
      expect(s.kept).toHaveLength(1)
      const k = s.kept[0]!
      expect(k.payload.payload).toMatchObject({
        type: 'deposit',
        deposit: { amount: '100000' },
        channelConfig: { withdrawDelay: 900 },
      })
      expect(
        Number(k.payload.payload.deposit.authorization.erc3009Authorization.validBefore) - k.at,
      ).toBeLessThanOrEqual(301)
      const channels = (await user.listChannels({ params: { id: a.id } })).channels
      expect(channels).toHaveLength(1)
      expect(channels[0]).toMatchObject({ id: answers[1]!.body.channelId, pendingDeposit: '0.1' })
      // The escrow (not made yet, its authorization still valid) counts, within the daily limit of 1.
      expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
      expect(await localBase(d).balance('USDC', a.wallet as Address)).toBe(5_000_000n)
      // Two days on (its rows dated back), the escrow still counts: it is not back in the wallet.
      await d.services.store.db
        .updateTable('platform_spends')
        .set({ created_at: Date.now() - 2 * 86_400_000 })
        .where('agent_id', '=', a.id)
        .execute()
      expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.1')
    } finally {
      await s.close()
    }
  })
})
