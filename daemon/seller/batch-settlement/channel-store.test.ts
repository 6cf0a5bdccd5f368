import type { Hex } from 'viem'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type ChannelRecord,
  type ChannelStore,
  memoryChannelStore,
} from '../../../src/sdk/x402/seller/batch-settlement/store.js'
import { openTestStore } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { sellerChannelStore } from './channel-store.js'

/**
 * The per-channel state transitions every ChannelStore must keep, on the memory store and on the
 * daemon's (SQLite, and PostgreSQL in the `postgres` project): reserve only against the charged
 * total the voucher was signed for and only when nobody holds the channel, commit only by the
 * holder, release forgets a channel that was never committed.
 */
const ID = `0x${'ab'.repeat(32)}` as Hex
const NOW = 1_800_000_000_000
const config = {
  payer: '0x00000000000000000000000000000000000000a1',
  payerAuthorizer: '0x00000000000000000000000000000000000000a1',
  receiver: '0x00000000000000000000000000000000000000b2',
  receiverAuthorizer: '0x00000000000000000000000000000000000000c3',
  token: '0x00000000000000000000000000000000000000d4',
  withdrawDelay: 900,
  salt: `0x${'00'.repeat(32)}`,
} as const
const record = (o: Partial<ChannelRecord> = {}): ChannelRecord => ({
  channelId: ID,
  network: 'eip155:31337',
  config: { ...config },
  chargedCumulativeAmount: '0',
  signedMaxClaimable: '1000',
  signature: '0x01',
  balance: '30000',
  totalClaimed: '0',
  withdrawRequestedAt: 0,
  refundNonce: '0',
  syncedAt: NOW,
  lastRequestAt: NOW,
  pendingId: 'p1',
  pendingExpiresAt: NOW + 10_000,
  tag: 'endpoint-1',
  ...o,
})

let sql: Store | undefined
const stores: Record<string, () => Promise<ChannelStore>> = {
  memory: async () => memoryChannelStore(),
  daemon: async () => sellerChannelStore((sql = await openTestStore())),
}
afterEach(async () => {
  await sql?.close()
  sql = undefined
})

for (const [name, open] of Object.entries(stores)) {
  describe(`${name} channel store`, () => {
    let s: ChannelStore
    beforeEach(async () => {
      s = await open()
    })

    it('a new channel is reserved and created; releasing it forgets it again', async () => {
      expect(await s.reserve({ record: record(), expectedCharged: '0', now: NOW })).toEqual({
        status: 'reserved',
        created: true,
      })
      expect(await s.get(ID)).toMatchObject({
        chargedCumulativeAmount: '0',
        pendingId: 'p1',
        tag: 'endpoint-1',
        config,
      })
      await s.release(ID, 'someone-else', { drop: true })
      expect(await s.get(ID)).toBeDefined()
      await s.release(ID, 'p1', { drop: true })
      expect(await s.get(ID)).toBeUndefined()
    })

    it('commit by the holder only; then the next request reserves against the new total, a stale one sees it', async () => {
      await s.reserve({ record: record(), expectedCharged: '0', now: NOW })
      expect(await s.commit(ID, 'other', { chargedCumulativeAmount: '1000' })).toBe(false)
      expect(
        await s.commit(ID, 'p1', { chargedCumulativeAmount: '1000', signedMaxClaimable: '1000', signature: '0x02' }),
      ).toBe(true)
      expect(await s.get(ID)).toMatchObject({
        chargedCumulativeAmount: '1000',
        pendingId: null,
        pendingExpiresAt: null,
      })
      const stale = await s.reserve({ record: record({ pendingId: 'p2' }), expectedCharged: '0', now: NOW })
      expect(stale).toMatchObject({ status: 'stale', current: { chargedCumulativeAmount: '1000', signature: '0x02' } })
      expect(
        await s.reserve({
          record: record({ pendingId: 'p3' }),
          expectedCharged: '1000',
          now: NOW,
          mirror: { balance: '50000', totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0', syncedAt: NOW + 1 },
        }),
      ).toEqual({ status: 'reserved', created: false })
      expect(await s.get(ID)).toMatchObject({ pendingId: 'p3', balance: '50000', syncedAt: NOW + 1 })
    })

    it('two concurrent vouchers on one channel: exactly one is accepted, the other finds it busy', async () => {
      await s.reserve({ record: record(), expectedCharged: '0', now: NOW })
      await s.commit(ID, 'p1', { chargedCumulativeAmount: '1000' })
      const both = await Promise.all(
        ['a', 'b'].map((id) => s.reserve({ record: record({ pendingId: id }), expectedCharged: '1000', now: NOW })),
      )
      expect(both.map((r) => r.status).sort()).toEqual(['busy', 'reserved'])
      const winner = (await s.get(ID))!.pendingId!
      // The loser cannot commit; the winner can, and a third with the old total is now stale.
      expect(await s.commit(ID, winner === 'a' ? 'b' : 'a', { chargedCumulativeAmount: '2000' })).toBe(false)
      expect(await s.commit(ID, winner, { chargedCumulativeAmount: '2000' })).toBe(true)
      expect((await s.reserve({ record: record({ pendingId: 'c' }), expectedCharged: '1000', now: NOW })).status).toBe(
        'stale',
      )
    })

    it('a reservation left by a crashed request expires', async () => {
      await s.reserve({ record: record(), expectedCharged: '0', now: NOW })
      expect(
        (await s.reserve({ record: record({ pendingId: 'p2' }), expectedCharged: '0', now: NOW + 5_000 })).status,
      ).toBe('busy')
      expect(
        (
          await s.reserve({
            record: record({ pendingId: 'p2', pendingExpiresAt: NOW + 30_000 }),
            expectedCharged: '0',
            now: NOW + 10_000,
          })
        ).status,
      ).toBe('reserved')
      expect(await s.commit(ID, 'p1', { chargedCumulativeAmount: '1000' })).toBe(false)
    })

    it('claimable lists channels charged beyond their claim; markClaimed never lowers it', async () => {
      await s.reserve({ record: record(), expectedCharged: '0', now: NOW })
      expect(await s.claimable()).toEqual([])
      await s.commit(ID, 'p1', { chargedCumulativeAmount: '3000' })
      expect((await s.claimable()).map((c) => c.chargedCumulativeAmount)).toEqual(['3000'])
      await s.markClaimed(ID, '3000')
      await s.markClaimed(ID, '1000')
      expect((await s.get(ID))!.totalClaimed).toBe('3000')
      expect(await s.claimable()).toEqual([])
      await s.remove(ID)
      expect(await s.get(ID)).toBeUndefined()
    })
  })
}
