import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { DAY_MS, type SpendsLedger, spendsLedger } from '../spends.js'
import { type AgentHoldStore, agentHoldStore } from './store.js'

/**
 * An agent's auth-capture hold in the spends ledger: the maximum counts against the limits while
 * held, whatever its age (a capture deadline may be a week away); what comes back (voided,
 * refunded, reclaimed) stops counting; a hold given back whole releases its spend.
 */
let store: Store
let spends: SpendsLedger
let holds: AgentHoldStore
let agentId: string
const A = '0x00000000000000000000000000000000000000aa' as const

beforeEach(async () => {
  store = await openTestStore()
  spends = spendsLedger(store)
  holds = agentHoldStore(store)
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
      address: A,
      wallet_sealed: 'x',
      per_payment_usd: null,
      daily_usd: '1',
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
})
afterEach(async () => store.close())

const info = {
  operator: A,
  payer: A,
  receiver: A,
  token: A,
  maxAmount: 400_000n,
  preApprovalExpiry: 1,
  authorizationExpiry: 2,
  refundExpiry: 3,
  minFeeBps: 0,
  maxFeeBps: 0,
  feeReceiver: A,
  salt: 5n,
}
async function held(id: `0x${string}`) {
  const spend = await spends.reserve({
    agentId,
    kind: 'pay',
    amountMicros: 400_000n,
    token: 'USDC',
    amount: '0.4',
    recipient: A,
    host: 'seller.test',
  })
  await holds.insert({
    id,
    spendId: spend.id,
    agentId,
    network: 'local-base',
    token: 'USDC',
    decimals: 6,
    escrow: A,
    info,
    fromBlock: 0n,
  })
  await spends.confirm(spend.id, { tx: null })
  return spend
}

describe('agent holds in the spends ledger', () => {
  it('a hold still held counts two days on; once settled, what came back stops counting', async () => {
    const spend = await held(`0x${'01'.repeat(32)}`)
    // Dated back two days: a plain pay would have left the rolling day.
    await store.db
      .updateTable('platform_spends')
      .set({ created_at: Date.now() - 2 * DAY_MS })
      .where('id', '=', spend.id)
      .execute()
    expect(await spends.spentToday(agentId)).toBe(400_000n)
    await holds.observe(
      `0x${'01'.repeat(32)}`,
      { captured: 100_000n, voided: 300_000n, refunded: 0n, reclaimed: 0n },
      { status: 'settled' },
    )
    // Settled two days ago: the capture counted on its own day, no longer today.
    expect(await spends.spentToday(agentId)).toBe(0n)
    const row = await store.db
      .selectFrom('platform_spends')
      .selectAll()
      .where('id', '=', spend.id)
      .executeTakeFirstOrThrow()
    expect({ state: row.state, amount: row.amount, micros: String(row.amount_micros) }).toEqual({
      state: 'confirmed',
      amount: '0.1',
      micros: '100000',
    })
  })

  it('a capture for less and a refund give the difference back; a hold back whole is released', async () => {
    await held(`0x${'02'.repeat(32)}`)
    await holds.observe(
      `0x${'02'.repeat(32)}`,
      { captured: 250_000n, voided: 150_000n, refunded: 0n, reclaimed: 0n },
      { status: 'settled' },
    )
    expect(await spends.spentToday(agentId)).toBe(250_000n)
    await holds.observe(
      `0x${'02'.repeat(32)}`,
      { captured: 250_000n, voided: 150_000n, refunded: 50_000n, reclaimed: 0n },
      { status: 'settled' },
    )
    expect(await spends.spentToday(agentId)).toBe(200_000n)
    // A stale read (less refunded than already seen) never takes back what came back.
    await holds.observe(
      `0x${'02'.repeat(32)}`,
      { captured: 250_000n, voided: 0n, refunded: 0n, reclaimed: 0n },
      { status: 'settled' },
    )
    expect(await spends.spentToday(agentId)).toBe(200_000n)
    const whole = await held(`0x${'03'.repeat(32)}`)
    await holds.observe(
      `0x${'03'.repeat(32)}`,
      { captured: 0n, voided: 0n, refunded: 0n, reclaimed: 400_000n },
      { status: 'settled', fromChain: true },
    )
    expect(
      (
        await store.db
          .selectFrom('platform_spends')
          .select('state')
          .where('id', '=', whole.id)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe('released')
    expect(await spends.spentToday(agentId)).toBe(200_000n)
  })

  it("a seller's claimed void frees the limits only until the escrow is read: the chain's amounts replace it", async () => {
    const spend = await held(`0x${'04'.repeat(32)}`)
    await holds.observe(
      `0x${'04'.repeat(32)}`,
      { captured: 0n, voided: 400_000n, refunded: 0n, reclaimed: 0n },
      { status: 'settled' },
    )
    expect(await spends.spentToday(agentId)).toBe(0n)
    await holds.observe(
      `0x${'04'.repeat(32)}`,
      { captured: 400_000n, voided: 0n, refunded: 0n, reclaimed: 0n },
      { status: 'settled', fromChain: true },
    )
    expect(await spends.spentToday(agentId)).toBe(400_000n)
    expect(
      (
        await store.db
          .selectFrom('platform_spends')
          .select('state')
          .where('id', '=', spend.id)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe('confirmed')
  })

  it("an escrow read that began before the pay recorded the seller's capture does not undo it; a later read does", async () => {
    const id = `0x${'05'.repeat(32)}` as const
    await held(id)
    const readAt = Date.now() - 1_000
    await holds.observe(
      id,
      { captured: 100_000n, voided: 300_000n, refunded: 0n, reclaimed: 0n },
      { status: 'settled' },
    )
    expect(await spends.spentToday(agentId)).toBe(100_000n)
    // The leader's read from before the capture: nothing on chain yet.
    const none = { captured: 0n, voided: 0n, refunded: 0n, reclaimed: 0n }
    await holds.observe(id, none, { status: 'held', fromChain: true, readAt })
    expect(await spends.spentToday(agentId)).toBe(100_000n)
    expect((await holds.get(id))?.voided).toBe('300000')
    // A read begun after it is the escrow's word, and replaces the seller's.
    await holds.observe(id, none, { status: 'held', fromChain: true, readAt: Date.now() + 1 })
    expect(await spends.spentToday(agentId)).toBe(400_000n)
  })
})
