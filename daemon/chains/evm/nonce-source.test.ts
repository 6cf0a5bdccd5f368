import { pino } from 'pino'
import { type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { openTestStore, testDialect } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { evmChain } from './chain.js'
import { fillNonceGaps } from './nonce-gaps.js'
import { storeNonces } from './nonce-source.js'
import { outboxStore } from './outbox.js'
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
      const sends = Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? one : two).send({ to, data: '0x', value: 1n, gas: 21_000n }),
      )
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

  describe('replicas on `parx chains` (anvil as a remote node) sharing one key', () => {
    const anvil = useAnvilChain()
    /** One funded key on the shared store, the daemon seeing anvil as a testnet RPC URL, not an embedded chain. */
    const replicaOnRemoteAnvil = async () => {
      const s = await store()
      const remote = evmChain({ ...anvil.chain.spec, rpc: 'config' }, anvil.rpcUrl, {})
      const key = await anvil.fundedKey()
      const nonces = (a: string, seed: () => Promise<number>) => storeNonces(s, remote.chainId, a, seed)
      return {
        s,
        remote,
        key,
        account: privateKeyToAccount(key),
        outbox: outboxStore(s),
        nonces,
        to: privateKeyToAccount(generatePrivateKey()).address,
      }
    }

    it("a transaction anvil leaves queued at the sender count is released with every replica's bytes from the outbox, a dead one's included", async () => {
      const { s, remote, key, account, outbox, nonces, to } = await replicaOnRemoteAnvil()
      const queued = async () => {
        const pool = await anvil.rpc<{ queued: Record<string, Record<string, unknown>> }>('txpool_content')
        return Object.keys(
          Object.entries(pool.queued).find(([a]) => a.toLowerCase() === account.address.toLowerCase())?.[1] ?? {},
        ).map(Number)
      }
      // The shared counter one ahead of the chain, so both transactions wait in the queued pool.
      const count = await remote.client.getTransactionCount({ address: account.address })
      await s.db
        .insertInto('relayer_nonces')
        .values({ chain_id: remote.chainId, address: account.address.toLowerCase(), next_nonce: count + 1 })
        .execute()
      // A replica that took a nonce, recorded and broadcast its transaction, then was killed: nothing of it watches any more.
      const deadNonce = await nonces(account.address, async () => count).take()
      const dead = await account.signTransaction({
        chainId: remote.chainId,
        type: 'eip1559',
        to,
        value: 1n,
        gas: 21_000n,
        nonce: deadNonce,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      })
      await outbox.record({
        hash: keccak256(dead),
        network: remote.key,
        chainId: remote.chainId,
        sender: account.address,
        nonce: deadNonce,
        raw: dead,
        purpose: 'swap',
      })
      await anvil.rpc('eth_sendRawTransaction', [dead])
      // The live replica's transaction, one nonce later.
      const warned: string[] = []
      const live = txSender(remote, key, { nonceSource: nonces, outbox, warn: (m) => warned.push(m) })
      const hash = await live.send({ to, data: '0x', value: 1n, gas: 21_000n })
      expect(await queued()).toEqual([count + 1, count + 2])
      // anvil's race, made on purpose (as in stuck-queue.test.ts): the account moves to the dead
      // replica's nonce without mining anything; its transaction stays queued at the count, and anvil never mines it.
      await anvil.rpc('anvil_setNonce', [account.address, `0x${(count + 1).toString(16)}`])
      await anvil.rpc('evm_mine')
      expect(await queued()).toEqual([count + 1, count + 2])

      // The live replica's guard takes the sender's queue out and sends both again from the outbox.
      expect((await live.wait(hash, 15_000)).status).toBe('success')
      expect((await remote.client.getTransactionReceipt({ hash: keccak256(dead) as Hex })).status).toBe('success')
      expect(await remote.client.getBalance({ address: to })).toBe(2n)
      expect(warned).toEqual([expect.stringContaining(`transaction ${count + 1} queued`)])
    })

    it("a nonce taken by a replica killed before it recorded anything is filled by the leader's round; the transactions behind it land", async () => {
      const { remote, key, account, outbox, nonces, to } = await replicaOnRemoteAnvil()
      const live = txSender(remote, key, { nonceSource: nonces, outbox })
      const first = await live.send({ to, data: '0x', value: 1n, gas: 21_000n })
      await live.wait(first)
      // Another replica takes the next nonce and is killed before it records or broadcasts anything.
      const lost = await nonces(account.address, async () => 0).take()
      const behind = await live.send({ to, data: '0x', value: 1n, gas: 21_000n })
      const round = (idleForMs: number) =>
        fillNonceGaps({ outbox, senders: [{ chain: remote, sender: live }], log: pino({ level: 'silent' }), idleForMs })
      // Rows younger than the wait are a live sender's business: left alone.
      expect(await round(3_600_000)).toEqual([])
      expect(await round(0)).toEqual([{ network: remote.key, address: account.address, nonce: lost }])
      expect((await live.wait(behind, 15_000)).status).toBe('success')
      expect(await remote.client.getBalance({ address: to })).toBe(2n)
      expect(await round(0)).toEqual([])
    })
  })
})
