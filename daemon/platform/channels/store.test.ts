import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { spendsLedger } from '../spends.js'
import { channelStore, type ChannelStore } from './store.js'

/**
 * A channel's accounting on the spends ledger: the deposit counts as escrow, vouchers draw on it
 * (never counted twice), limits refuse a voucher as they would a payment, a refund stops the
 * escrow counting, and the lease lets one pay at a time use the channel.
 */
let store: Store
let channels: ChannelStore
let agentId: string
const CH = `0x${'ab'.repeat(32)}`
const spend = (micros: bigint, amount: string) => ({ agentId, channelId: CH, amountMicros: micros, token: 'USDC', amount, recipient: '0x00000000000000000000000000000000000000cc', host: 'seller.test' })

beforeEach(async () => {
  store = await openTestStore()
  channels = channelStore(store)
  const userId = randomUUID()
  agentId = randomUUID()
  await store.db.insertInto('platform_users').values({ id: userId, wallet: null, name: 'u', created_at: Date.now() }).execute()
  await store.db.insertInto('platform_agents').values({
    id: agentId, user_id: userId, name: 'a', network: 'local-base', address: '0x00000000000000000000000000000000000000bb', wallet_sealed: 'x',
    per_payment_usd: '0.002', daily_usd: '0.05', allowed_hosts: null, created_at: Date.now(),
  }).execute()
  await channels.ensure({ id: CH, agent_id: agentId, network: 'local-base', token: 'USDC', config: '{}', receiver: '0xcc', receiver_authorizer: '0xdd', url: 'http://seller.test/x', host: 'seller.test' })
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
    await channels.refundEscrow(CH, 9600n, 'refunded')
    expect(await spentToday()).toBe(400n)
  })

  it('a voucher is refused by the per-payment limit, and by the daily limit on what vouchers charged (not the escrow they draw on)', async () => {
    await channels.reserveDeposit(spend(4000n, '0.004'))
    await expect(channels.reserveVoucher(spend(3000n, '0.003'))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', fields: { limit: 'perPayment' } })
    // Another channel's 0.045 and this one's 0.004 escrow: two 0.002 vouchers fit (the escrow they draw on is left out), a third no more.
    await channels.reserveDeposit({ ...spend(45_000n, '0.045'), channelId: `0x${'cd'.repeat(32)}` })
    await channels.reserveVoucher(spend(2000n, '0.002'))
    await channels.reserveVoucher(spend(2000n, '0.002'))
    await expect(channels.reserveVoucher(spend(2000n, '0.002'))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', fields: { limit: 'daily' } })
  })

  it('a deposit is checked against the day and the hosts, not the per-payment limit', async () => {
    await channels.reserveDeposit(spend(10_000n, '0.01'))
    await expect(channels.reserveDeposit(spend(41_000n, '0.041'))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', fields: { limit: 'daily' } })
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
