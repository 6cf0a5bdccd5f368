import type { Hex } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { testStoreUrl } from '../../test/helpers/store.js'
import { openStore, type Store } from '../store/store.js'
import { storeInflightOrders } from './inflight-store.js'

const user = '0x00000000000000000000000000000000000000aa'
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const opened: Store[] = []
afterAll(async () => void (await Promise.all(opened.map((s) => s.close()))))

/** Two replicas' stores on one database (PostgreSQL), or the one SQLite store twice. */
async function twoReplicas(): Promise<[Store, Store]> {
  const url = await testStoreUrl()
  const a = await openStore({ file: ':memory:', url })
  opened.push(a)
  if (!url) return [a, a]
  const b = await openStore({ file: ':memory:', url })
  opened.push(b)
  return [a, b]
}

describe('storeInflightOrders (the claim of a Base order across replicas)', () => {
  it('of many racers on two replicas, exactly one claims the order; the rest are NONCE_MISMATCH', async () => {
    const [sa, sb] = await twoReplicas()
    const a = storeInflightOrders({ store: sa, chainId: 84532, isLive: async () => true })
    const b = storeInflightOrders({ store: sb, chainId: 84532, isLive: async () => true })
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(user, 7n)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'NONCE_MISMATCH' })
    // Another nonce, or the same nonce on another chain, is its own claim.
    await expect(b.claim(user, 8n)).resolves.toBeDefined()
    await expect(
      storeInflightOrders({ store: sb, chainId: 1, isLive: async () => true }).claim(user, 7n),
    ).resolves.toBeDefined()
  })

  it('names the relayed transaction on the other replica while it may still land, and frees it once dead', async () => {
    const [sa, sb] = await twoReplicas()
    const live = new Set<Hex>([hash(1)])
    const isLive = async (h: Hex) => live.has(h)
    const a = storeInflightOrders({ store: sa, chainId: 1, isLive })
    const b = storeInflightOrders({ store: sb, chainId: 1, isLive })
    await (await a.claim(user, 0n)).relayed(hash(1))
    await expect(b.claim(user, 0n)).rejects.toThrow(`GET /api/base/confirm?hash=${hash(1)}`)
    live.delete(hash(1))
    await expect(b.claim(user, 0n)).resolves.toBeDefined()
    await expect(a.claim(user, 0n)).rejects.toMatchObject({ code: 'NONCE_MISMATCH' })
  })

  it('a released claim is free again; an orphaned one (its replica died before sending) after a minute', async () => {
    const [sa, sb] = await twoReplicas()
    let t = 1_000_000
    const a = storeInflightOrders({ store: sa, chainId: 1, isLive: async () => true, now: () => t })
    const b = storeInflightOrders({ store: sb, chainId: 1, isLive: async () => true, now: () => t })
    await (await a.claim(user, 9n)).release()
    await b.claim(user, 9n) // held by b from now on, and b "dies"
    await expect(a.claim(user, 9n)).rejects.toMatchObject({ code: 'NONCE_MISMATCH' })
    t += 61_000
    await expect(a.claim(user, 9n)).resolves.toBeDefined()
  })
})
