import { afterEach, describe, expect, it } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { openTestStore, testDialect } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { storeNonces } from './nonce-source.js'
import { txSender } from './tx-sender.js'

const stores: Store[] = []
const store = async () => {
  const s = await openTestStore()
  stores.push(s)
  return s
}
afterEach(async () => void (await Promise.all(stores.splice(0).map((s) => s.close()))))

describe(`nonces through the store (${testDialect()})`, () => {
  it('takers sharing one counter never get the same nonce and leave no gap', async () => {
    const s = await store()
    const seed = async () => 7
    const [a, b] = [storeNonces(s, 1, '0xAB', seed), storeNonces(s, 1, '0xab', seed)]
    const taken = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take()))
    expect([...taken].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => 7 + i))
    // Handing back the last one makes it the next; an older one must be filled by the caller.
    expect(await a.giveBack(46)).toBe(true)
    expect(await b.take()).toBe(46)
    expect(await b.giveBack(10)).toBe(false)
    // A seed never moves the counter back, but a chain that is ahead raises it.
    expect(await storeNonces(s, 1, '0xab', async () => 3).take()).toBe(47)
    expect(await storeNonces(s, 1, '0xab', async () => 100).take()).toBe(100)
  })

  describe('two senders with one key on one chain (as two replicas)', () => {
    const anvil = useAnvilChain()

    it('relay concurrently on no shared nonce; a refused one is filled, so later ones land', async () => {
      const s = await store()
      const { chain } = anvil
      const key = await anvil.fundedKey()
      const address = privateKeyToAccount(key).address
      const nonces = (a: string, seed: () => Promise<number>) => storeNonces(s, chain.chainId, a, seed)
      const [one, two] = [txSender(chain, key, { nonceSource: nonces }), txSender(chain, key, { nonceSource: nonces })]
      const to = privateKeyToAccount(generatePrivateKey()).address
      const sends = Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).send({ to, data: '0x', value: 1n, gas: 21_000n }))
      // The node refuses one at the door (more gas than a block holds); the rest go on.
      const refused = one.send({ to, data: '0x', value: 1n, gas: 10n ** 9n })
      const more = Array.from({ length: 4 }, () => two.send({ to, data: '0x', value: 1n, gas: 21_000n }))
      await expect(refused).rejects.toMatchObject({ code: 'RELAY_FAILED' })
      const hashes = await Promise.all([...sends, ...more])
      for (const h of hashes) expect((await one.wait(h)).status).toBe('success')
      expect(await chain.client.getBalance({ address: to })).toBe(24n)
      // 24 transfers and at most one no-op filling the refused nonce: nothing stuck behind a gap.
      const count = await chain.client.getTransactionCount({ address })
      expect(count === 24 || count === 25).toBe(true)
    })
  })
})
