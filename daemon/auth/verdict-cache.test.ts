import { describe, expect, it } from 'vitest'
import { hashKey } from './partner-keys.js'
import { verdictCache } from './verdict-cache.js'

function setup() {
  let t = 0
  const states = new Map<string, string>()
  let down = false
  let reads = 0
  const cache = verdictCache({
    now: () => t,
    lookup: async (key) => {
      reads++
      if (down) throw new Error('store unreachable')
      const state = states.get(key)
      return state ? { state } : undefined
    },
  })
  return { cache, states, advance: (ms: number) => (t += ms), setDown: (v: boolean) => (down = v), reads: () => reads }
}

describe('verdict cache (docs/swap-api.md "Authentication": propagation)', async () => {
  it('a new key validates within 30 s of an earlier "no"', async () => {
    const s = setup()
    expect(await s.cache.isValid('k')).toBe(false)
    s.states.set('k', 'active')
    s.advance(29_000)
    expect(await s.cache.isValid('k')).toBe(false)
    s.advance(1_001)
    expect(await s.cache.isValid('k')).toBe(true)
  })

  it('a deactivated key stops within 5 minutes', async () => {
    const s = setup()
    s.states.set('k', 'active')
    expect(await s.cache.isValid('k')).toBe(true)
    s.states.set('k', 'deactivated')
    s.advance(299_000)
    expect(await s.cache.isValid('k')).toBe(true)
    s.advance(1_001)
    expect(await s.cache.isValid('k')).toBe(false)
  })

  it('serves cached verdicts without reading the store', async () => {
    const s = setup()
    s.states.set('k', 'active')
    await s.cache.isValid('k')
    await s.cache.isValid('k')
    expect(s.reads()).toBe(1)
  })

  it('honours the last verdict for up to one hour when the store is unreachable, then fails closed', async () => {
    const s = setup()
    s.states.set('k', 'active')
    expect(await s.cache.isValid('k')).toBe(true)
    s.setDown(true)
    s.advance(59 * 60_000)
    expect(await s.cache.isValid('k')).toBe(true)
    s.advance(2 * 60_000)
    await expect(s.cache.isValid('k')).rejects.toThrow(/key store cannot be read/)
    await expect(s.cache.isValid('never-seen')).rejects.toThrow(/key store cannot be read/)
  })

  it('forget applies a local change at once', async () => {
    const s = setup()
    s.states.set('k', 'active')
    expect(await s.cache.isValid('k')).toBe(true)
    s.states.set('k', 'deleted')
    s.cache.forget(hashKey('k'))
    expect(await s.cache.isValid('k')).toBe(false)
  })
})
