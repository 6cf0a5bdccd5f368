import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { processNonces } from './nonce-source.js'
import { stuckQueueGuard } from './stuck-queue.js'
import { txSender } from './tx-sender.js'

/**
 * anvil's stuck queue is a race; here it is made on purpose: a transaction sent one nonce ahead
 * waits in the queued pool, then `anvil_setNonce` moves the account to that nonce without mining
 * the one before. The transaction then sits queued at the account's next nonce, as after the race.
 */
describe('a transaction anvil leaves queued at the sender next nonce', () => {
  const anvil = useAnvilChain()
  const { rpc } = anvil
  const to = privateKeyToAccount(generatePrivateKey()).address
  const funded = async () => {
    const key = await anvil.fundedKey()
    return { key, account: privateKeyToAccount(key) }
  }
  const signTransfer = (key: Hex, nonce: number) =>
    privateKeyToAccount(key).signTransaction({
      chainId: anvil.chain.chainId,
      type: 'eip1559',
      to,
      value: 1n,
      gas: 21_000n,
      nonce,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    })
  const queued = async (address: string) => {
    const pool = await rpc<{ queued: Record<string, Record<string, unknown>> }>('txpool_content')
    return Object.keys(
      Object.entries(pool.queued).find(([a]) => a.toLowerCase() === address.toLowerCase())?.[1] ?? {},
    ).map(Number)
  }
  const stickAt = async (address: string, nonce: number) => {
    await rpc('anvil_setNonce', [address, `0x${nonce.toString(16)}`])
    await rpc('evm_mine')
  }
  // The tests below look themselves; the guard's own timer must not look meanwhile.
  const manual = { everyMs: 3_600_000 }

  it('is left alone on the first looks, then taken out and sent again byte for byte; it lands under the same hash', async () => {
    const { key, account } = await funded()
    const raws = [await signTransfer(key, 1), await signTransfer(key, 2)]
    const hashes = await Promise.all(raws.map((raw) => rpc<Hex>('eth_sendRawTransaction', [raw])))
    await stickAt(account.address, 1)
    expect(await queued(account.address)).toEqual([1, 2])
    // anvil by itself never mines it.
    await rpc('evm_mine')
    expect(await rpc('eth_getTransactionReceipt', [hashes[0]])).toBeNull()

    const released: unknown[] = []
    const guard = stuckQueueGuard({
      client: anvil.chain.client,
      address: account.address,
      onRelease: (e) => released.push(e),
      ...manual,
    })
    raws.forEach((raw, i) => guard.signed(i + 1, raw))
    expect(await guard.check()).toBe(false) // the first look only notes the count
    expect(await guard.check()).toBe(false) // the next one notes what is queued at it
    expect(await guard.check()).toBe(true)
    expect(released).toEqual([{ nonce: 1, resent: 2 }])
    for (const hash of hashes)
      expect((await anvil.chain.client.waitForTransactionReceipt({ hash, timeout: 5_000 })).status).toBe('success')
    expect(await queued(account.address)).toEqual([])
    expect(await guard.check()).toBe(false) // everything signed is on chain
  })

  it('leaves a real gap alone: a transaction queued ahead of the sender count is waiting for the one before it', async () => {
    const { key, account } = await funded()
    const ahead = await signTransfer(key, 3)
    await rpc('eth_sendRawTransaction', [ahead])
    const guard = stuckQueueGuard({ client: anvil.chain.client, address: account.address, ...manual })
    guard.signed(3, ahead)
    for (let i = 0; i < 4; i++) expect(await guard.check()).toBe(false)
    expect(await queued(account.address)).toEqual([3])
  })

  it('on a node that is not anvil (active answers false) it never touches the pool, and keeps nothing', async () => {
    const { key, account } = await funded()
    const raw = await signTransfer(key, 1)
    const hash = await rpc<Hex>('eth_sendRawTransaction', [raw])
    await stickAt(account.address, 1)
    const guard = stuckQueueGuard({
      client: anvil.chain.client,
      address: account.address,
      active: async () => false,
      ...manual,
    })
    guard.signed(1, raw)
    for (let i = 0; i < 4; i++) expect(await guard.check()).toBe(false)
    expect(await queued(account.address)).toEqual([1])
    expect(await rpc('eth_getTransactionReceipt', [hash])).toBeNull()
  })

  it('the sender on an embedded chain releases it by itself: the caller sees its transaction included', async () => {
    const { key, account } = await funded()
    // A source handing out nonce 1 first makes the sender's transaction wait in the queue.
    const nonces = () => processNonces(async () => 1)
    const warned: string[] = []
    const sender = txSender(anvil.chain, key, { nonceSource: nonces, warn: (m) => warned.push(m) })
    const hash = await sender.send({ to, data: '0x', value: 1n, gas: 21_000n })
    expect(await queued(account.address)).toEqual([1])
    await stickAt(account.address, 1)
    expect((await sender.wait(hash, 10_000)).status).toBe('success')
    expect(warned).toEqual([expect.stringContaining(`${account.address}'s transaction 1 queued`)])
  })
})
