import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import { spendingByDay } from '../../dashboard/spending.js'
import type { Store } from '../../store/store.js'
import { paymentsPage, spendReport } from '../payments.js'
import { DAY_MS, spendsLedger } from '../spends.js'
import { type ChannelStore, channelStore } from './store.js'

/**
 * A channel's accounting on the spends ledger: the deposit counts as escrow, vouchers draw on it
 * (never counted twice), limits refuse a voucher as they would a payment, a refund stops the
 * escrow counting, and the lease lets one pay at a time use the channel.
 */
let store: Store
let channels: ChannelStore
let agentId: string
const CH = `0x${'ab'.repeat(32)}`
const spend = (micros: bigint, amount: string) => ({
  agentId,
  channelId: CH,
  amountMicros: micros,
  token: 'USDC',
  amount,
  recipient: '0x00000000000000000000000000000000000000cc',
  host: 'seller.test',
})

beforeEach(async () => {
  store = await openTestStore()
  channels = channelStore(store)
  const userId = randomUUID()
  agentId = randomUUID()
  await store.db
    .insertInto('platform_users')
    .values({ id: userId, wallet: null, name: 'u', created_at: Date.now() })
    .execute()
  await store.db
    .insertInto('platform_agents')
    .values({
      id: agentId,
      user_id: userId,
      name: 'a',
      network: 'local-base',
      address: '0x00000000000000000000000000000000000000bb',
      wallet_sealed: 'x',
      per_payment_usd: '0.002',
      daily_usd: '0.05',
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
  await channels.ensure({
    id: CH,
    agent_id: agentId,
    network: 'local-base',
    token: 'USDC',
    config: '{}',
    receiver: '0xcc',
    receiver_authorizer: '0xdd',
    url: 'http://seller.test/x',
    host: 'seller.test',
  })
})
afterEach(async () => store.close())

const spentToday = () => spendsLedger(store).spentToday(agentId)

describe('channel accounting', () => {
  it('a deposit counts in full; vouchers move out of it, so the day counts the deposit once', async () => {
    const deposit = await channels.reserveDeposit(spend(10_000n, '0.01'))
    expect(await spentToday()).toBe(10_000n)
    const v1 = await channels.reserveVoucher(spend(1000n, '0.001'))
    expect(await spentToday()).toBe(10_000n)
    await channels.settleVoucher(v1, 400n, '0.0004') // usage: charged less than the price
    expect(await spentToday()).toBe(10_000n)
    const v2 = await channels.reserveVoucher(spend(1000n, '0.001'))
    await channels.releaseVoucher(v2, 'seller refused')
    expect(await spentToday()).toBe(10_000n)
    const rows = await store.db.selectFrom('platform_spends').selectAll().where('agent_id', '=', agentId).execute()
    expect(rows.find((r) => r.id === deposit.id)!.amount_micros.toString()).toBe('9600')
    expect(rows.find((r) => r.id === v1.id)).toMatchObject({ state: 'confirmed', amount: '0.0004' })
    expect(rows.find((r) => r.id === v2.id)).toMatchObject({ state: 'released' })
    await channels.refundEscrow(CH, 9600n, '0.0096', 'refunded')
    expect(await spentToday()).toBe(400n)
  })

  it('a voucher is refused by the per-payment limit, and by the daily limit on what vouchers charged (not the escrow they draw on)', async () => {
    await channels.reserveDeposit(spend(4000n, '0.004'))
    await expect(channels.reserveVoucher(spend(3000n, '0.003'))).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      fields: { limit: 'perPayment' },
    })
    // Another seller's channel's 0.045 and this one's 0.004 escrow: two 0.002 vouchers fit (the escrow they draw on is left out), a third no more.
    await channels.reserveDeposit({
      ...spend(45_000n, '0.045'),
      channelId: `0x${'cd'.repeat(32)}`,
      recipient: '0x00000000000000000000000000000000000000ee',
    })
    await channels.reserveVoucher(spend(2000n, '0.002'))
    await channels.reserveVoucher(spend(2000n, '0.002'))
    await expect(channels.reserveVoucher(spend(2000n, '0.002'))).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      fields: { limit: 'day' },
    })
  })

  it('escrow counts against the day until it is back in the wallet, not for 24 hours: a two-day-old deposit still refuses what it leaves no room for', async () => {
    const deposit = await channels.reserveDeposit(spend(30_000n, '0.03'))
    const v = await channels.reserveVoucher(spend(1000n, '0.001'))
    await channels.settleVoucher(v, 1000n, '0.001')
    // Two days pass (the rows dated back, as the clock would move them).
    const twoDaysAgo = Date.now() - 2 * DAY_MS
    await store.db
      .updateTable('platform_spends')
      .set({ created_at: twoDaysAgo })
      .where('agent_id', '=', agentId)
      .execute()
    // The voucher's charge left the day; the 0.029 still in escrow did not.
    expect(await spentToday()).toBe(29_000n)
    expect(await spendsLedger(store).spentToday(agentId, Date.now() + 30 * DAY_MS)).toBe(29_000n)
    // The daily limit of 0.05 leaves 0.021: a payment or a deposit above it is refused (no per-payment limit here).
    await store.db.updateTable('platform_agents').set({ per_payment_usd: null }).where('id', '=', agentId).execute()
    await expect(
      spendsLedger(store).reserve({
        agentId,
        kind: 'pay',
        amountMicros: 22_000n,
        token: 'USDC',
        amount: '0.022',
        host: 'seller.test',
      }),
    ).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', fields: { limit: 'day' } })
    await expect(
      channels.reserveDeposit({
        ...spend(22_000n, '0.022'),
        channelId: `0x${'cd'.repeat(32)}`,
        recipient: '0x00000000000000000000000000000000000000ee',
      }),
    ).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', fields: { limit: 'day' } })
    // Refunded: back in the wallet, it stops counting.
    await channels.refundEscrow(CH, 29_000n, '0.029', 'refunded')
    expect(await spentToday()).toBe(0n)
    expect(
      (
        await store.db
          .selectFrom('platform_spends')
          .select('amount_micros')
          .where('id', '=', deposit.id)
          .executeTakeFirstOrThrow()
      ).amount_micros.toString(),
    ).toBe('0')
  })

  it('one channel per seller and token: a second channel to the same seller takes no deposit while the first holds one', async () => {
    await channels.reserveDeposit(spend(10_000n, '0.01'))
    const other = `0x${'cd'.repeat(32)}`
    await expect(channels.reserveDeposit({ ...spend(10_000n, '0.01'), channelId: other })).rejects.toMatchObject({
      code: 'CHANNEL_TERMS_CHANGED',
      status: 409,
      fields: { channelId: CH, charged: false },
    })
    // Another seller, or another token, is another channel.
    await channels.reserveDeposit({
      ...spend(1000n, '0.001'),
      channelId: other,
      recipient: '0x00000000000000000000000000000000000000ee',
    })
    await channels.reserveDeposit({ ...spend(1000n, '0.001'), channelId: `0x${'ef'.repeat(32)}`, token: 'PUSD' })
    // The first channel's deposit back in the wallet: the seller's new terms may have their channel.
    await channels.refundEscrow(CH, 10_000n, '0.01', 'refunded')
    await channels.reserveDeposit({ ...spend(1000n, '0.001'), channelId: `0x${'12'.repeat(32)}` })
  })

  it('a deposit is checked against the day and the hosts, not the per-payment limit', async () => {
    await channels.reserveDeposit(spend(10_000n, '0.01'))
    await expect(channels.reserveDeposit(spend(41_000n, '0.041'))).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      fields: { limit: 'day' },
    })
  })

  it('the report, the history and the dashboard count a channel once: vouchers at what was charged, the deposit at what is still in escrow', async () => {
    const deposit = await channels.reserveDeposit(spend(10_000n, '0.01'))
    await spendsLedger(store).confirm(deposit.id, { tx: null })
    const v1 = await channels.reserveVoucher(spend(1000n, '0.001'))
    await channels.settleVoucher(v1, 1000n, '0.001')
    const v2 = await channels.reserveVoucher(spend(1000n, '0.001'))
    await channels.settleVoucher(v2, 400n, '0.0004') // usage: charged less than the price
    const v3 = await channels.reserveVoucher(spend(1000n, '0.001'))
    await channels.releaseVoucher(v3, 'seller refused')
    // A deposit of 0.01 and vouchers of 0.001 + 0.0004: 0.01 in all (0.0086 still in escrow), as the limits count it.
    const check = async (usd: string, escrow: string) => {
      expect(await spentToday()).toBe(BigInt(Math.round(Number(usd) * 1e6)))
      const r = await spendReport(store, agentId, {})
      expect(r.total.usd).toBe(usd)
      expect(r.byToken).toEqual([expect.objectContaining({ token: 'USDC', amount: usd, usd })])
      expect(r.byDay.map((d) => d.usd)).toEqual([usd])
      expect(r.byHost).toEqual([expect.objectContaining({ host: 'seller.test', usd })])
      const page = await paymentsPage(store, agentId, {})
      const row = page.payments.find((p) => p.id === deposit.id)!
      expect(row).toMatchObject({ amount: escrow, amountUsd: escrow })
      expect(row.reason).toContain('deposit of 0.01 USDC')
      expect(page.payments.find((p) => p.id === v2.id)).toMatchObject({ amount: '0.0004', amountUsd: '0.0004' })
      expect((await spendingByDay(store, agentId)).at(-1)!.usd).toBe(usd)
    }
    await check('0.01', '0.0086')
    // Refunded: the escrow stops counting everywhere; what the vouchers charged stays.
    await channels.refundEscrow(CH, 8600n, '0.0086', 'refunded 0.0086 USDC')
    await check('0.0014', '0')
  })

  it('a voucher drawing past one deposit takes the rest from the next, in tokens as in micros; a release puts it back in the newest', async () => {
    await channels.reserveDeposit(spend(1000n, '0.001'))
    await channels.reserveDeposit(spend(2000n, '0.002'))
    const v = await channels.reserveVoucher(spend(1500n, '0.0015'))
    const deposits = async () =>
      (
        await store.db
          .selectFrom('platform_spends')
          .select(['amount', 'amount_micros'])
          .where('agent_id', '=', agentId)
          .where('id', '!=', v.id)
          .orderBy('created_at')
          .orderBy('amount_micros')
          .execute()
      ).map((r) => `${r.amount}/${r.amount_micros}`)
    expect((await deposits()).sort()).toEqual(['0.0015/1500', '0/0'])
    await channels.releaseVoucher(v, 'refused')
    // Back into one row (the newest; both may share a millisecond): 0.003 again, each row's amount its micros.
    const back = await deposits()
    expect(back.reduce((a, r) => a + Number(r.split('/')[1]), 0)).toBe(3000)
    for (const r of back) expect(Math.round(Number(r.split('/')[0]) * 1e6)).toBe(Number(r.split('/')[1]))
  })

  it('a channel nothing was signed for (its first pay refused) is not listed', async () => {
    expect(await channels.list(agentId)).toEqual([])
    expect(await channels.get(CH)).toBeDefined() // the row the pay's lease was held on
    await channels.update(CH, { signed: '1000', pending_deposit: '10000', pending_spend: 'x' })
    expect((await channels.list(agentId)).map((c) => c.id)).toEqual([CH])
  })

  it('one lease at a time; a second holder waits, or gives up after its wait', async () => {
    const a = await channels.lease(CH, 60_000, 1000)
    await expect(channels.lease(CH, 60_000, 50)).rejects.toMatchObject({ code: 'SELLER_FAILED' })
    const waiting = channels.lease(CH, 60_000, 5000)
    await a.release()
    await (await waiting).release()
    // An expired lease (a crashed holder) is taken over.
    await channels.lease(CH, -1, 100)
    await (await channels.lease(CH, 60_000, 100)).release()
  })
})
