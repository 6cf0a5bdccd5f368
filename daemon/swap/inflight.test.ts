import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { inflightOrders } from './inflight.js'

const user = '0x00000000000000000000000000000000000000aa'
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

describe('inflightOrders', () => {
  it('refuses a second claim of the same order while the first is being checked', async () => {
    const orders = inflightOrders(async () => true)
    await orders.claim(user, 3n)
    await expect(orders.claim(user.toUpperCase().replace('0X', '0x') as typeof user, 3n)).rejects.toMatchObject({
      code: 'NONCE_MISMATCH',
    })
    await expect(orders.claim(user, 4n)).resolves.toBeDefined()
  })

  it('names the relayed transaction that holds the nonce while it may still land', async () => {
    const orders = inflightOrders(async () => true)
    await (await orders.claim(user, 0n)).relayed(hash(1))
    await expect(orders.claim(user, 0n)).rejects.toThrow(`GET /api/base/confirm?hash=${hash(1)}`)
  })

  it('lets the order through again once its relay reverted or vanished', async () => {
    const live = new Set<Hex>([hash(2)])
    const orders = inflightOrders(async (h) => live.has(h))
    await (await orders.claim(user, 0n)).relayed(hash(2))
    live.delete(hash(2))
    await expect(orders.claim(user, 0n)).resolves.toBeDefined()
  })

  it('frees a claim whose relay failed before sending', async () => {
    const orders = inflightOrders(async () => true)
    await (await orders.claim(user, 9n)).release()
    await expect(orders.claim(user, 9n)).resolves.toBeDefined()
  })
})
