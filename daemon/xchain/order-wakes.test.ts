import { afterEach, describe, expect, it } from 'vitest'
import { testDialect, testStoreUrl } from '../../test/helpers/store.js'
import { openStore, type Store } from '../store/store.js'
import { type OrderWakes, postgresOrderWakes, processOrderWakes } from './order-wakes.js'

const open: { stores: Store[]; wakes: OrderWakes[] } = { stores: [], wakes: [] }
afterEach(async () => {
  await Promise.all(open.wakes.splice(0).map((w) => w.stop()))
  await Promise.all(open.stores.splice(0).map((s) => s.close()))
})

const until = async (what: () => boolean) => {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 20))
  expect(what()).toBe(true)
}

describe('order wakes', () => {
  it('wake this process at once, naming the order', () => {
    const woken: string[] = []
    processOrderWakes((id) => woken.push(id)).publish('0x01')
    expect(woken).toEqual(['0x01'])
  })

  it.runIf(testDialect() === 'postgres')(
    'wake every replica on the store, the one that built the order included',
    async () => {
      const url = (await testStoreUrl())!
      const replica = () => {
        const counter = { woken: 0 }
        return {
          counter,
          open: async () => {
            const store = await openStore({ file: ':memory:', url })
            open.stores.push(store)
            const wakes = postgresOrderWakes({ url, store, wake: () => counter.woken++ })
            open.wakes.push(wakes)
            return wakes
          },
        }
      }
      const [a, b] = [replica(), replica()]
      const wa = await a.open()
      await b.open()
      // Each wakes once when its LISTEN is in place (announcements missed before it are unknown).
      await until(() => a.counter.woken === 1 && b.counter.woken === 1)
      wa.publish('0x02')
      await until(() => b.counter.woken === 2)
      // The publisher is woken at once and again by its own NOTIFY.
      await until(() => a.counter.woken === 3)
    },
  )
})
