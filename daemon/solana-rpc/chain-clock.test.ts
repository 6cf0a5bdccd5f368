import { describe, expect, it } from 'vitest'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import { ChainClock } from './chain-clock.js'
import { MetaStore } from './meta-store.js'

function setup(validity = 150) {
  let now = 1_700_000_000_000
  const meta = new MetaStore(openChainDb(':memory:'))
  const options = { slotMs: 400, blockhashValidity: validity, now: () => now }
  return {
    meta,
    options,
    clock: new ChainClock(meta, options),
    step: (ms: number) => {
      now += ms
    },
  }
}

describe('ChainClock', () => {
  it('advances slots and unix time with the wall clock', () => {
    const { clock, step } = setup()
    const start = clock.slot()
    step(400 * 10)
    expect(clock.slot()).toBe(start + 10)
    expect(clock.unixTimestamp(start + 10) - clock.unixTimestamp(start)).toBe(4)
  })

  it('never goes back when the wall clock does', () => {
    const { clock, step } = setup()
    step(4000)
    const slot = clock.slot()
    step(-60_000)
    expect(clock.slot()).toBe(slot)
  })

  it('keeps a blockhash valid through lastValidBlockHeight and not after', () => {
    const { clock, step } = setup(5)
    const { blockhash, lastValidBlockHeight } = clock.latest()
    expect(lastValidBlockHeight).toBe(clock.blockHeight() + 5)
    step(400 * 5)
    expect(clock.blockHeight()).toBe(lastValidBlockHeight)
    expect(clock.isBlockhashValid(blockhash)).toBe(true)
    step(400)
    expect(clock.isBlockhashValid(blockhash)).toBe(false)
    expect(clock.latest().blockhash).not.toBe(blockhash)
  })

  it('resumes the same cluster after a restart, advance() included', () => {
    const { meta, options, clock } = setup()
    clock.advance(1000)
    const { slot, blockhash } = clock.latest()
    const again = new ChainClock(meta, options)
    expect(again.slot()).toBe(slot)
    expect(again.isBlockhashValid(blockhash)).toBe(true)
    expect(again.blockhash(slot)).toBe(blockhash)
  })

  it('tells wall time, on a new cluster and after a restart', () => {
    const meta = new MetaStore(openChainDb(':memory:'))
    const wall = () => Date.now() / 1000
    const clock = new ChainClock(meta)
    expect(Math.abs(clock.unixTimestamp(clock.slot()) - wall())).toBeLessThan(2)
    const again = new ChainClock(meta, {}, clock.slot())
    expect(Math.abs(again.unixTimestamp(again.slot()) - wall())).toBeLessThan(2)
  })

  it('a cluster made when time ran 400 s ahead keeps its times and waits for wall time, never going back', () => {
    let now = 1_700_000_000_000
    const meta = new MetaStore(openChainDb(':memory:'))
    // What a release before wall-clock time left: genesis, its slot offset, no legacy_until_slot.
    meta.set('genesis_ms', String(now - 60_000))
    meta.set('slot_offset', '1000')
    const old = (slot: number) => Math.floor((now - 60_000 + slot * 400) / 1000)
    const clock = new ChainClock(meta, { now: () => now })
    const slot = clock.slot()
    expect(clock.unixTimestamp(slot)).toBe(old(slot))
    expect(clock.unixTimestamp(slot) - now / 1000).toBeCloseTo(400, -1)
    let last = clock.unixTimestamp(slot)
    for (let i = 0; i < 500; i++) {
      now += 1000
      const t = new ChainClock(meta, { now: () => now }).unixTimestamp(clock.slot())
      expect(t).toBeGreaterThanOrEqual(last)
      last = t
    }
    // 500 s later, wall time has caught up and the clock follows it.
    expect(Math.abs(last - now / 1000)).toBeLessThan(2)
  })

  it('a clock fact in the store that is not what parx wrote refuses the start (STORE_UNREADABLE), never a clock from NaN', () => {
    for (const [key, value] of [
      ['genesis_ms', 'garbage'],
      ['slot_offset', '1e3x'],
      ['blockhash_seed', 'zz'],
      ['legacy_until_slot', ''],
    ]) {
      const meta = new MetaStore(openChainDb(':memory:'))
      new ChainClock(meta)
      meta.set(key!, value!)
      expect(() => new ChainClock(meta), key).toThrow(
        expect.objectContaining({ code: 'STORE_UNREADABLE', message: expect.stringContaining(`solana_meta '${key}'`) }),
      )
    }
  })

  it('does not know blockhashes of another cluster', () => {
    const a = setup().clock
    const b = setup().clock
    expect(b.isBlockhashValid(a.latest().blockhash)).toBe(false)
  })
})
