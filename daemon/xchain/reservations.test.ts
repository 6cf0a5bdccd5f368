import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { type Reservations, reservations } from './reservations.js'

let store: Store
let r: Reservations
let balance = 100n
beforeEach(async () => {
  store = await openTestStore()
  balance = 100n
  // The solver's balance as the chain would report it (chain reads are covered by the e2e tests).
  r = reservations({ store, balance: async () => ({ balance, decimals: 0 }) })
})
afterEach(async () => store.close())

const hold = (id: string, amount: bigint, expiresAt?: number) =>
  r.hold({ id, network: 'local-base', token: 'PUSD', amount, ref: 'test', what: 'this order pays out', expiresAt })

describe('inventory reservations', () => {
  it('promises no more than the balance, and what is released or spent stops counting', async () => {
    expect(await hold('a', 60n)).toEqual({ available: 40n })
    await expect(hold('b', 41n)).rejects.toMatchObject({ code: 'INVENTORY_SHORT' })
    expect(await hold('b', 40n)).toEqual({ available: 0n })
    expect(await r.available('local-base', 'PUSD')).toBe(0n)
    expect(await r.release('a')).toBe(true)
    expect(await r.release('a')).toBe(false)
    expect(await r.state('a')).toBe('released')
    expect(await r.available('local-base', 'PUSD')).toBe(60n)
    // Delivered: the balance now shows it, the hold no longer counts.
    balance = 60n
    await r.spend('b')
    expect(await r.available('local-base', 'PUSD')).toBe(60n)
    expect(await r.release('b')).toBe(false)
  })

  it('concurrent holds never promise the same units', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => hold(`c${i}`, 20n)))
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(5)
    expect(await r.available('local-base', 'PUSD')).toBe(0n)
  })

  it('a hold with an expiry stops counting once it has passed', async () => {
    await hold('old', 100n, Date.now() - 1)
    expect(await r.available('local-base', 'PUSD')).toBe(100n)
  })
})
