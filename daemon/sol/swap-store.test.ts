import { afterEach, describe, expect, it } from 'vitest'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { settledStatus } from './open-swaps.js'
import { type NewSolSwap, solSwapStore } from './swap-store.js'

const swap = (signature: string, outAmount: bigint, outMint = 'PUSDmint', network = 'local-solana'): NewSolSwap => ({
  signature,
  network,
  kind: 'entry',
  user: 'user',
  inSymbol: 'USDC',
  outSymbol: 'PUSD',
  outMint,
  inAmount: outAmount / 1000n,
  outAmount,
  blockhash: 'hash',
  lastValidBlockHeight: 1150,
})

const opened: Store[] = []
const swaps = async (now?: () => number) => {
  const store = await openTestStore()
  opened.push(store)
  return solSwapStore(store, now)
}
afterEach(async () => void (await Promise.all(opened.splice(0).map((s) => s.close()))))

describe(`solSwapStore (${testDialect()})`, () => {
  it('reserves the output of built swaps per network and mint, and releases it once they settle', async () => {
    const store = await swaps()
    await store.insert(swap('a', 2n ** 64n - 1n))
    await store.insert(swap('b', 5n))
    await store.insert(swap('c', 7n, 'XUSDmint'))
    await store.insert(swap('d', 11n, 'PUSDmint', 'solana'))
    expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(2n ** 64n + 4n) // u64 amounts add up exactly
    await store.settle('a', { status: 'confirmed', slot: 12 })
    await store.settle('b', { status: 'expired' })
    expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(0n)
    expect(await store.reserved('local-solana', 'XUSDmint', await store.mark())).toBe(7n)
    expect((await store.open('local-solana', 10)).map((s) => s.signature)).toEqual(['c'])
  })

  it('still reserves a swap that settled after the mark a caller took before reading balances', async () => {
    const store = await swaps()
    await store.insert(swap('a', 3n))
    await store.insert(swap('b', 5n))
    await store.settle('a', { status: 'confirmed', slot: 1 })
    const mark = await store.mark()
    await store.settle('b', { status: 'confirmed', slot: 2 })
    expect(await store.reserved('local-solana', 'PUSDmint', mark)).toBe(5n)
    expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(0n)
    expect(await store.mark()).toBe(mark + 1)
  })

  it('keeps the first verdict and forgets discarded swaps', async () => {
    const store = await swaps()
    await store.insert(swap('a', 1n))
    await store.settle('a', { status: 'failed', slot: 3, err: { InstructionError: [1, 'Custom'] } })
    await store.settle('a', { status: 'expired' })
    expect(await store.get('a')).toMatchObject({ status: 'failed', slot: 3, err: { InstructionError: [1, 'Custom'] } })
    await store.insert(swap('b', 1n))
    await store.discard('b')
    expect(await store.get('b')).toBeUndefined()
  })

  it('answers the same reservations as the rows say while inserts, settles and discards overlap', async () => {
    const store = await swaps()
    const truth = new Map<string, bigint>()
    const writes: Promise<unknown>[] = []
    for (let i = 0; i < 60; i++) {
      const sig = `s${i}`
      const amount = BigInt(1 + ((i * 7919) % 1000))
      truth.set(sig, amount)
      writes.push(
        store.insert(swap(sig, amount)).then(async () => {
          if (i % 3 === 0) {
            await store.settle(sig, { status: 'confirmed', slot: i })
            truth.delete(sig)
          }
          if (i % 5 === 1) {
            await store.discard(sig)
            truth.delete(sig)
          }
        }),
      )
      // Readers in between, some of them the first of their mint.
      if (i % 4 === 0) writes.push(store.reserved('local-solana', 'PUSDmint', await store.mark()))
    }
    await Promise.all(writes)
    const open = [...truth.values()].reduce((a, b) => a + b, 0n)
    expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(open)
    expect((await store.open('local-solana', 100)).reduce((a, s) => a + s.outAmount, 0n)).toBe(open)
  })

  it.runIf(testDialect() === 'sqlite')(
    'keeps the open total in memory on SQLite instead of summing every open row again',
    async () => {
      const raw = await openTestStore()
      opened.push(raw)
      const store = solSwapStore(raw)
      await store.insert(swap('a', 5n))
      expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(5n)
      // A row written behind the store's back is not summed again: the total moves only with the store's writes.
      await raw.db.updateTable('sol_swaps').set({ out_amount: '500' }).where('signature', '=', 'a').execute()
      await store.insert(swap('b', 7n))
      expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(12n)
      await store.discard('b')
      expect(await store.reserved('local-solana', 'PUSDmint', await store.mark())).toBe(5n)
    },
  )

  it('lists recent swaps newest first, without the ones that expired unsubmitted', async () => {
    let t = 0
    const store = await swaps(() => ++t)
    for (const s of ['a', 'b', 'c', 'd']) await store.insert(swap(s, 1n))
    await store.settle('b', { status: 'expired' })
    await store.settle('c', { status: 'confirmed', slot: 9 })
    expect((await store.recent('local-solana', 10)).map((s) => [s.signature, s.status])).toEqual([
      ['d', 'built'],
      ['c', 'confirmed'],
      ['a', 'built'],
    ])
    expect(await store.recent('local-solana', 1)).toHaveLength(1)
  })
})

describe('settledStatus', () => {
  const status = (confirmationStatus: 'processed' | 'confirmed' | 'finalized', err: unknown = null) => ({
    slot: 5,
    confirmations: null,
    err: err as null,
    confirmationStatus,
  })
  it('counts a confirmed or finalized landing, success or failure', () => {
    expect(settledStatus(status('confirmed'), 10, 100)).toEqual({ status: 'confirmed', slot: 5 })
    expect(settledStatus(status('finalized', { InstructionError: [0, 'Custom'] }), 10, 100)).toMatchObject({
      status: 'failed',
      slot: 5,
    })
  })
  it('leaves a processed landing open: its fork may still be dropped', () => {
    expect(settledStatus(status('processed'), 1000, 100)).toBeUndefined()
  })
  it('expires an unseen transaction only once the chain is past its last valid block height', () => {
    expect(settledStatus(null, 100, 100)).toBeUndefined()
    expect(settledStatus(null, 101, 100)).toEqual({ status: 'expired' })
  })
})
