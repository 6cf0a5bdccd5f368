import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Store } from '../store/store.js'
import { EXPIRY_MARGIN_SECONDS, type PaymentProof } from './pay/proof.js'
import { recheckPendingSpends } from './pending-spends.js'
import { type SpendsLedger, spendsLedger } from './spends.js'

/**
 * The spend states of a pay whose seller did not settle: reserved (and counted) while the signed
 * payment can still be used, however the seller answered; decided from the chain only once it
 * expired: used -> confirmed, unused -> released, no answer -> still reserved.
 */
let store: Store
let spends: SpendsLedger
let agentId: string
const log = pino({ level: 'silent' })
const NOW = 1_800_000_000 // unix seconds
const TOKEN = '0x00000000000000000000000000000000000000aa'
const FROM = '0x00000000000000000000000000000000000000bb'

beforeEach(async () => {
  store = await openTestStore()
  spends = spendsLedger(store)
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
      address: FROM,
      wallet_sealed: 'x',
      per_payment_usd: null,
      daily_usd: '1',
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
})
afterEach(async () => store.close())

const proof = (validBefore: number): PaymentProof => ({
  kind: 'eip3009',
  token: TOKEN,
  from: FROM,
  nonce: `0x${'11'.repeat(32)}`,
  validBefore: BigInt(validBefore),
})
const reserve = () =>
  spends.reserve({
    agentId,
    kind: 'pay',
    amountMicros: 400_000n,
    token: 'USDC',
    amount: '0.4',
    recipient: FROM,
    host: 'seller.test',
  })
const stateOf = async (id: string) =>
  await store.db
    .selectFrom('platform_spends')
    .select(['state', 'reason', 'tx'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

/** A chain that answers what the case says: head timestamp, authorizationState, and whether it errs. */
function chain(c: { head?: number; used?: boolean; down?: boolean }): Record<string, EvmChain> {
  const fail = () => Promise.reject(new Error('rpc down'))
  const client = {
    getBlock: async () => (c.down ? fail() : { timestamp: BigInt(c.head ?? 0) }),
    readContract: async () => (c.down ? fail() : (c.used ?? false)),
    getBlockNumber: async () => (c.down ? fail() : 10n),
    getLogs: async () => (c.down ? fail() : [{ transactionHash: `0x${'22'.repeat(32)}` }]),
  }
  return { 'local-base': { client } as unknown as EvmChain }
}
const recheck = (evm: Record<string, EvmChain>, at = NOW) =>
  recheckPendingSpends({ spends, evm, log, now: () => at * 1000 })

describe(`spend states of a held pay (${testDialect()})`, () => {
  it('a held spend keeps counting toward the daily limit: five 0.40 refusals reserve only two', async () => {
    const held: string[] = []
    for (let i = 0; i < 5; i++) {
      try {
        const s = await reserve()
        await spends.signed(s.id, proof(NOW + 300))
        await spends.hold(s.id, 'seller answered 402 without a settlement')
        held.push(s.id)
      } catch (e) {
        expect((e as { code?: string }).code).toBe('LIMIT_EXCEEDED')
      }
    }
    expect(held).toHaveLength(2)
    expect(await spends.spentToday(agentId)).toBe(800_000n)
    expect((await stateOf(held[0]!)).state).toBe('reserved')
  })

  it('is not due before its validBefore; after it, unused and expired on chain: released', async () => {
    const s = await reserve()
    await spends.signed(s.id, proof(NOW + 10))
    await spends.hold(s.id, 'refused')
    expect(await spends.expired(NOW)).toHaveLength(0)
    expect(await recheck(chain({ head: NOW + 20 }), NOW)).toEqual({ confirmed: 0, released: 0, kept: 0 })
    expect((await spends.expired(NOW + 10)).map((r) => [r.id, r.network])).toEqual([[s.id, 'local-base']])
    expect(await recheck(chain({ head: NOW + 11 }), NOW + 11)).toEqual({ confirmed: 0, released: 1, kept: 0 })
    expect((await stateOf(s.id)).state).toBe('released')
    expect(await spends.spentToday(agentId)).toBe(0n)
  })

  it('used on chain after the refusal: confirmed as charged, with its transaction', async () => {
    const s = await reserve()
    await spends.signed(s.id, proof(NOW + 10))
    await spends.hold(s.id, 'refused')
    expect(await recheck(chain({ head: NOW + 11, used: true }), NOW + 11)).toEqual({
      confirmed: 1,
      released: 0,
      kept: 0,
    })
    expect(await stateOf(s.id)).toMatchObject({ state: 'confirmed', tx: `0x${'22'.repeat(32)}` })
    expect(await spends.spentToday(agentId)).toBe(400_000n)
  })

  it('a chain that does not answer, or whose head is not past validBefore yet, keeps it reserved', async () => {
    const s = await reserve()
    await spends.signed(s.id, proof(NOW + 10))
    expect(await recheck(chain({ down: true }), NOW + 11)).toEqual({ confirmed: 0, released: 0, kept: 1 })
    // An idle chain (head older than validBefore): only the local clock past the margin decides.
    expect(await recheck(chain({ head: NOW }), NOW + 11)).toEqual({ confirmed: 0, released: 0, kept: 1 })
    // Past the margin, but the chain cannot say whether it was used: still reserved.
    expect(await recheck(chain({ down: true }), NOW + 10 + Number(EXPIRY_MARGIN_SECONDS))).toEqual({
      confirmed: 0,
      released: 0,
      kept: 1,
    })
    expect((await stateOf(s.id)).state).toBe('reserved')
    expect(await recheck(chain({ head: NOW }), NOW + 10 + Number(EXPIRY_MARGIN_SECONDS))).toEqual({
      confirmed: 0,
      released: 1,
      kept: 0,
    })
  })

  it('a permit is usable AT its deadline: released only once the head is past it', async () => {
    const s = await reserve()
    const permit: PaymentProof = {
      kind: 'erc2612',
      token: TOKEN,
      owner: FROM,
      nonce: 3n,
      to: FROM,
      value: 1n,
      validBefore: BigInt(NOW + 10),
    }
    await spends.signed(s.id, permit)
    expect(await recheck(chain({ head: NOW + 10 }), NOW + 10)).toMatchObject({ kept: 1 })
    expect(await recheck(chain({ head: NOW + 11 }), NOW + 11)).toMatchObject({ released: 1 })
  })

  it('a spend without a signature (nothing signed yet) is never due; a released one is not held again', async () => {
    const s = await reserve()
    expect(await spends.expired(NOW + 10_000)).toHaveLength(0)
    await spends.release(s.id, 'signing failed')
    await spends.hold(s.id, 'late')
    expect((await stateOf(s.id)).state).toBe('released')
  })
})
