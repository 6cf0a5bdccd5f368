import { describe, expect, it } from 'vitest'
import { openStore } from '../store/db.js'
import { settledStatus } from './open-swaps.js'
import { solSwapStore, type NewSolSwap } from './swap-store.js'

const swap = (signature: string, outAmount: bigint, outMint = 'PUSDmint', network = 'local-solana'): NewSolSwap => ({
  signature, network, kind: 'entry', user: 'user', inSymbol: 'USDC', outSymbol: 'PUSD', outMint,
  inAmount: outAmount / 1000n, outAmount, blockhash: 'hash', lastValidBlockHeight: 1150,
})

describe('solSwapStore', () => {
  it('reserves the output of built swaps per network and mint, and releases it once they settle', () => {
    const store = solSwapStore(openStore(':memory:'))
    store.insert(swap('a', 2n ** 64n - 1n))
    store.insert(swap('b', 5n))
    store.insert(swap('c', 7n, 'XUSDmint'))
    store.insert(swap('d', 11n, 'PUSDmint', 'solana'))
    expect(store.reserved('local-solana', 'PUSDmint', store.mark())).toBe(2n ** 64n + 4n) // u64 amounts add up exactly
    store.settle('a', { status: 'confirmed', slot: 12 })
    store.settle('b', { status: 'expired' })
    expect(store.reserved('local-solana', 'PUSDmint', store.mark())).toBe(0n)
    expect(store.reserved('local-solana', 'XUSDmint', store.mark())).toBe(7n)
    expect(store.open('local-solana', 10).map((s) => s.signature)).toEqual(['c'])
  })

  it('still reserves a swap that settled after the mark a caller took before reading balances', () => {
    const store = solSwapStore(openStore(':memory:'))
    store.insert(swap('a', 3n))
    store.insert(swap('b', 5n))
    store.settle('a', { status: 'confirmed', slot: 1 })
    const mark = store.mark()
    store.settle('b', { status: 'confirmed', slot: 2 })
    expect(store.reserved('local-solana', 'PUSDmint', mark)).toBe(5n)
    expect(store.reserved('local-solana', 'PUSDmint', store.mark())).toBe(0n)
    expect(store.mark()).toBe(mark + 1)
  })

  it('keeps the first verdict and forgets discarded swaps', () => {
    const store = solSwapStore(openStore(':memory:'))
    store.insert(swap('a', 1n))
    store.settle('a', { status: 'failed', slot: 3, err: { InstructionError: [1, 'Custom'] } })
    store.settle('a', { status: 'expired' })
    expect(store.get('a')).toMatchObject({ status: 'failed', slot: 3, err: { InstructionError: [1, 'Custom'] } })
    store.insert(swap('b', 1n))
    store.discard('b')
    expect(store.get('b')).toBeUndefined()
  })

  it('lists recent swaps newest first, without the ones that expired unsubmitted', () => {
    let t = 0
    const store = solSwapStore(openStore(':memory:'), () => ++t)
    for (const s of ['a', 'b', 'c', 'd']) store.insert(swap(s, 1n))
    store.settle('b', { status: 'expired' })
    store.settle('c', { status: 'confirmed', slot: 9 })
    expect(store.recent('local-solana', 10).map((s) => [s.signature, s.status])).toEqual([['d', 'built'], ['c', 'confirmed'], ['a', 'built']])
    expect(store.recent('local-solana', 1)).toHaveLength(1)
  })
})

describe('settledStatus', () => {
  const status = (confirmationStatus: 'processed' | 'confirmed' | 'finalized', err: unknown = null) => ({ slot: 5, confirmations: null, err: err as null, confirmationStatus })
  it('counts a confirmed or finalized landing, success or failure', () => {
    expect(settledStatus(status('confirmed'), 10, 100)).toEqual({ status: 'confirmed', slot: 5 })
    expect(settledStatus(status('finalized', { InstructionError: [0, 'Custom'] }), 10, 100)).toMatchObject({ status: 'failed', slot: 5 })
  })
  it('leaves a processed landing open: its fork may still be dropped', () => {
    expect(settledStatus(status('processed'), 1000, 100)).toBeUndefined()
  })
  it('expires an unseen transaction only once the chain is past its last valid block height', () => {
    expect(settledStatus(null, 100, 100)).toBeUndefined()
    expect(settledStatus(null, 101, 100)).toEqual({ status: 'expired' })
  })
})
