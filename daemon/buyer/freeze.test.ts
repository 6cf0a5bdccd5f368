import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import { type PlatformStore, platformStore } from '../platform/store.js'
import type { Store } from '../store/store.js'
import { type ChannelStore, channelStore } from './batch-settlement/store.js'
import { type SpendsLedger, spendsLedger } from './spends.js'

/**
 * A freeze is read under the same row lock that reserves a spend (freeze.ts): a frozen agent's
 * pays, sends, swaps, channel deposits and vouchers are refused with AGENT_FROZEN and nothing is
 * recorded; unfreezing lets them through again. Run on SQLite and PostgreSQL (storeSensitive).
 */
let store: Store
let spends: SpendsLedger
let channels: ChannelStore
let platform: PlatformStore
let userId: string
let agentId: string
let otherId: string
const CH = `0x${'ab'.repeat(32)}`
const PAYEE = '0x00000000000000000000000000000000000000cc'

const addAgent = async (id: string, address: string) =>
  store.db
    .insertInto('platform_agents')
    .values({
      id,
      user_id: userId,
      name: 'a',
      network: 'local-base',
      address,
      wallet_sealed: 'x',
      per_payment_usd: null,
      daily_usd: null,
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()

beforeEach(async () => {
  store = await openTestStore()
  spends = spendsLedger(store)
  channels = channelStore(store)
  platform = platformStore(store, undefined)
  userId = randomUUID()
  agentId = randomUUID()
  otherId = randomUUID()
  await store.db
    .insertInto('platform_users')
    .values({ id: userId, wallet: null, name: 'u', created_at: Date.now() })
    .execute()
  await addAgent(agentId, '0x00000000000000000000000000000000000000bb')
  await addAgent(otherId, '0x00000000000000000000000000000000000000b1')
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

const kinds = {
  pay: () =>
    spends.reserve({
      agentId,
      kind: 'pay',
      amountMicros: 100_000n,
      token: 'USDC',
      amount: '0.1',
      recipient: PAYEE,
      host: 'seller.test',
    }),
  send: () =>
    spends.reserve({ agentId, kind: 'send', amountMicros: 100_000n, token: 'USDC', amount: '0.1', recipient: PAYEE }),
  swap: () => spends.reserve({ agentId, kind: 'swap', amountMicros: 100_000n, token: 'USDC', amount: '0.1' }),
  deposit: () =>
    channels.reserveDeposit({
      agentId,
      channelId: CH,
      amountMicros: 100_000n,
      token: 'USDC',
      amount: '0.1',
      recipient: PAYEE,
      host: 'seller.test',
    }),
  voucher: () =>
    channels.reserveVoucher({
      agentId,
      channelId: CH,
      amountMicros: 10_000n,
      token: 'USDC',
      amount: '0.01',
      recipient: PAYEE,
      host: 'seller.test',
    }),
}
const rows = async () =>
  (await store.db.selectFrom('platform_spends').select('id').where('agent_id', '=', agentId).execute()).length
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'reserved',
    (e: unknown) => (e instanceof BaseError ? e.code : String(e)),
  )

describe(`agent freeze in the spends ledger (${testDialect()})`, () => {
  it('refuses every kind of spend of a frozen agent with AGENT_FROZEN, recording nothing; unfreezing lets them through', async () => {
    const [frozen] = await platform.setFrozen({ agentId }, true)
    expect(frozen!.frozen_at).not.toBeNull()
    for (const [kind, reserve] of Object.entries(kinds)) expect(await codeOf(reserve()), kind).toBe('AGENT_FROZEN')
    expect(await rows()).toBe(0)

    const [thawed] = await platform.setFrozen({ agentId }, false)
    expect(thawed!.frozen_at).toBeNull()
    for (const [kind, reserve] of Object.entries(kinds)) expect(await codeOf(reserve()), kind).toBe('reserved')
    expect(await rows()).toBe(5)
  })

  it('the error names when the agent was frozen; a second freeze keeps the first time', async () => {
    const [first] = await platform.setFrozen({ agentId }, true)
    const [again] = await platform.setFrozen({ agentId }, true)
    expect(Number(again!.frozen_at)).toBe(Number(first!.frozen_at))
    const e = await kinds.pay().catch((x: BaseError) => x)
    expect(e).toBeInstanceOf(BaseError)
    expect((e as BaseError).fields?.frozenAt).toBe(new Date(Number(first!.frozen_at)).toISOString())
  })

  it('what was reserved before the freeze follows its course: signed, confirmed, a voucher settled, a charge recorded', async () => {
    const pay = await kinds.pay()
    const voucher = await kinds.voucher()
    await platform.setFrozen({ agentId }, true)
    await spends.signed(pay.id, {
      kind: 'eip3009',
      token: PAYEE,
      from: PAYEE,
      nonce: `0x${'11'.repeat(32)}`,
      validBefore: 2_000_000_000n,
    })
    await spends.confirm(pay.id, { tx: `0x${'22'.repeat(32)}` })
    await channels.settleVoucher(voucher, 10_000n, '0.01')
    await channels.recordCharge(
      {
        agentId,
        channelId: CH,
        amountMicros: 1_000n,
        token: 'USDC',
        amount: '0.001',
        recipient: PAYEE,
        host: 'seller.test',
      },
      'seller proved it',
    )
    const states = await store.db
      .selectFrom('platform_spends')
      .select(['id', 'state'])
      .where('agent_id', '=', agentId)
      .execute()
    expect(states.find((r) => r.id === pay.id)!.state).toBe('confirmed')
    expect(states.filter((r) => r.state === 'confirmed')).toHaveLength(3)
  })

  it("freezes and unfreezes all of a user's agents in one step, and only that user's", async () => {
    const strangerUser = randomUUID()
    const stranger = randomUUID()
    await store.db
      .insertInto('platform_users')
      .values({ id: strangerUser, wallet: null, name: 's', created_at: Date.now() })
      .execute()
    await store.db
      .insertInto('platform_agents')
      .values({
        id: stranger,
        user_id: strangerUser,
        name: 's',
        network: 'local-base',
        address: '0x00000000000000000000000000000000000000dd',
        wallet_sealed: 'x',
        per_payment_usd: null,
        daily_usd: null,
        allowed_hosts: null,
        created_at: Date.now(),
      })
      .execute()
    const all = await platform.setFrozen({ userId }, true)
    expect(all.map((a) => a.id).sort()).toEqual([agentId, otherId].sort())
    expect(all.every((a) => a.frozen_at !== null)).toBe(true)
    expect(
      await codeOf(
        spends.reserve({
          agentId: otherId,
          kind: 'send',
          amountMicros: 1n,
          token: 'USDC',
          amount: '0.000001',
          recipient: PAYEE,
        }),
      ),
    ).toBe('AGENT_FROZEN')
    expect(
      await codeOf(
        spends.reserve({
          agentId: stranger,
          kind: 'send',
          amountMicros: 1n,
          token: 'USDC',
          amount: '0.000001',
          recipient: PAYEE,
        }),
      ),
    ).toBe('reserved')
    expect((await platform.setFrozen({ userId }, false)).every((a) => a.frozen_at === null)).toBe(true)
    expect(await codeOf(kinds.send())).toBe('reserved')
  })
})
