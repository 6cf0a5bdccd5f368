import { afterEach, describe, expect, it } from 'vitest'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { settlementStore } from './settlements.js'

const claim = { network: 'eip155:1', method: 'eip3009', payTo: '0xb', asset: '0xa', amount: '1' }
const opened: Store[] = []
const ledger = async () => {
  const store = await openTestStore()
  opened.push(store)
  return settlementStore(store)
}
afterEach(async () => void (await Promise.all(opened.splice(0).map((s) => s.close()))))

describe(`settlement ledger (${testDialect()})`, () => {
  it('lets exactly one claim of an authorization through until it fails', async () => {
    const store = await ledger()
    const first = await store.claim('k', claim)
    expect('id' in first).toBe(true)
    const second = await store.claim('k', claim)
    expect(second).toMatchObject({ existing: { state: 'pending', auth_key: 'k' } })
    await store.failed((first as { id: number }).id, { reason: 'r', message: 'm' })
    // A failure releases the authorization, and stays as history.
    const retry = await store.claim('k', claim)
    expect('id' in retry).toBe(true)
    await store.settled((retry as { id: number }).id, '0xabc', '0xpayer')
    expect(await store.claim('k', claim)).toMatchObject({
      existing: { state: 'settled', tx: '0xabc', payer: '0xpayer' },
    })
    expect((await store.live('k'))?.state).toBe('settled')
  })

  it('keeps a broadcast settlement of unknown fate claimed, naming its transaction', async () => {
    const store = await ledger()
    const c = (await store.claim('k', claim)) as { id: number }
    await store.broadcast(c.id, '0xfeed')
    expect(await store.claim('k', claim)).toMatchObject({ existing: { state: 'pending', tx: '0xfeed' } })
    expect((await store.pending()).map((r) => r.id)).toEqual([c.id])
    expect(await store.nextId()).toBe(c.id + 1)
  })

  it('of many concurrent claims of one authorization, exactly one wins', async () => {
    const store = await ledger()
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim('race', claim)))
    expect(results.filter((r) => 'id' in r)).toHaveLength(1)
    expect(results.filter((r) => 'existing' in r)).toHaveLength(19)
  })
})

describe(`settlement ledger: pending rows decided once, told once (${testDialect()})`, () => {
  it('decides a pending row exactly once and finds attempts by transaction', async () => {
    const store = await ledger()
    const c = (await store.claim('p', claim)) as { id: number }
    await store.broadcast(c.id, '0xbeef', '0xpayer')
    expect(await store.byId(c.id)).toMatchObject({
      state: 'pending',
      tx: '0xbeef',
      payer: '0xpayer',
      reported: 0,
      amount: '1',
      pay_to: '0xb',
    })
    const decisions = await Promise.all([
      store.decide(c.id, { state: 'settled', tx: '0xbeef', payer: '0xpayer' }),
      store.decide(c.id, { state: 'failed', reason: 'r', message: 'm' }),
    ])
    expect(decisions.filter(Boolean)).toHaveLength(1)
    expect((await store.byTx('0xbeef')).map((r) => r.id)).toEqual([c.id])
    expect(await store.byTx('0xnone')).toEqual([])
  })

  it('lets one caller be told a background settlement succeeded, and none when the settle itself told it', async () => {
    const store = await ledger()
    const bg = (await store.claim('bg', claim)) as { id: number }
    await store.decide(bg.id, { state: 'settled', tx: '0x1', payer: '0xp' })
    const told = await Promise.all([store.report(bg.id), store.report(bg.id), store.report(bg.id)])
    expect(told.filter(Boolean)).toHaveLength(1)
    expect((await store.byId(bg.id))?.reported).toBe(1)
    const direct = (await store.claim('direct', claim)) as { id: number }
    await store.settled(direct.id, '0x2', '0xp', { reported: true })
    expect(await store.report(direct.id)).toBe(false)
  })
})
