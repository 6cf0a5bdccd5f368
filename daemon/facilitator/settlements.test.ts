import { describe, expect, it } from 'vitest'
import { openStore } from '../store/db.js'
import { settlementStore } from './settlements.js'

const claim = { network: 'eip155:1', method: 'eip3009', payTo: '0xb', asset: '0xa', amount: '1' }

describe('settlement ledger', () => {
  it('lets exactly one claim of an authorization through until it fails', () => {
    const store = settlementStore(openStore(':memory:'))
    const first = store.claim('k', claim)
    expect('id' in first).toBe(true)
    const second = store.claim('k', claim)
    expect(second).toMatchObject({ existing: { state: 'pending', auth_key: 'k' } })
    store.failed((first as { id: number }).id, { reason: 'r', message: 'm' })
    // A failure releases the authorization, and stays as history.
    const retry = store.claim('k', claim)
    expect('id' in retry).toBe(true)
    store.settled((retry as { id: number }).id, '0xabc', '0xpayer')
    expect(store.claim('k', claim)).toMatchObject({ existing: { state: 'settled', tx: '0xabc', payer: '0xpayer' } })
    expect(store.live('k')?.state).toBe('settled')
  })

  it('keeps a broadcast settlement of unknown fate claimed, naming its transaction', () => {
    const store = settlementStore(openStore(':memory:'))
    const c = store.claim('k', claim) as { id: number }
    store.broadcast(c.id, '0xfeed')
    expect(store.claim('k', claim)).toMatchObject({ existing: { state: 'pending', tx: '0xfeed' } })
    expect(store.pending().map((r) => r.id)).toEqual([c.id])
    expect(store.nextId()).toBe(c.id + 1)
  })
})
