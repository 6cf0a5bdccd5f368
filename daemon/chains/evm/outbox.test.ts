import { describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import { outboxStore } from './outbox.js'

const entry = (n: number) => ({
  hash: `0x${n.toString(16).padStart(64, '0')}`,
  network: 'local-base',
  chainId: 1,
  sender: '0xAbC',
  nonce: n,
  raw: '0x02',
  purpose: 'settlement',
})

describe('outboxStore.unconfirmed', () => {
  it('reads only rows created before the cut-off when given one (the sweep never reads what a live sender holds)', async () => {
    const store = await openTestStore()
    try {
      const outbox = outboxStore(store)
      await outbox.record(entry(1))
      await outbox.record(entry(0))
      const cut = Date.now() + 1
      expect((await outbox.unconfirmed()).map((r) => Number(r.nonce))).toEqual([0, 1])
      expect((await outbox.unconfirmed(cut)).map((r) => Number(r.nonce))).toEqual([0, 1])
      expect(await outbox.unconfirmed(0)).toEqual([])
      await outbox.mark(entry(0).hash, 'included')
      expect((await outbox.unconfirmed(cut)).map((r) => Number(r.nonce))).toEqual([1])
    } finally {
      await store.close()
    }
  })
})

describe('outboxStore.sentFrom', () => {
  it("reads one sender's undecided rows on one network from a nonce up, in nonce order, whoever signed them", async () => {
    const store = await openTestStore()
    try {
      const outbox = outboxStore(store)
      for (const n of [3, 1, 2, 5]) await outbox.record(entry(n))
      await outbox.record({ ...entry(4), sender: '0xdef' })
      await outbox.record({ ...entry(6), network: 'local-radius' })
      await outbox.mark(entry(5).hash, 'included')
      const from = async (nonce: number) =>
        (await outbox.sentFrom('local-base', '0xABC', nonce)).map((r) => Number(r.nonce))
      expect(await from(2)).toEqual([2, 3])
      expect(await from(0)).toEqual([1, 2, 3])
      expect(await from(6)).toEqual([])
    } finally {
      await store.close()
    }
  })
})
