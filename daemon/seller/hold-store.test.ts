import type { Hex } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { type HoldRecord, type HoldStore, memoryHoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { sellerHoldStore } from './hold-store.js'

/**
 * What every HoldStore must keep, on the memory store and on the daemon's (SQLite, and PostgreSQL
 * in the `postgres` project): a payment is recorded once, every field comes back as written, and
 * an update applies only at the version it read, so two replicas never both capture or refund
 * from one snapshot of a hold.
 */
const ID = `0x${'AB'.repeat(32)}` as Hex
const NOW = 1_800_000_000_000
const record = (o: Partial<HoldRecord> = {}): HoldRecord => ({
  id: ID,
  network: 'eip155:31337',
  requirements: {
    scheme: 'auth-capture',
    network: 'eip155:31337',
    asset: '0x00000000000000000000000000000000000000c0',
    amount: '1000',
    payTo: '0x00000000000000000000000000000000000000b0',
    maxTimeoutSeconds: 120,
    extra: { captureDeadline: 1_800_003_600, captureMode: 'sync' },
  },
  paymentInfo: {
    operator: '0x00000000000000000000000000000000000000a1',
    maxAmount: '1000',
    salt: `0x${'01'.repeat(32)}`,
  },
  saltNonce: `0x${'02'.repeat(32)}`,
  payer: '0x00000000000000000000000000000000000000d0',
  payTo: '0x00000000000000000000000000000000000000b0',
  maxAmount: '1000',
  status: 'authorizing',
  captured: '0',
  voided: '0',
  refunded: '0',
  captureDeadline: 1_800_003_600,
  refundDeadline: 1_800_086_400,
  authorizeTransaction: '',
  captureTransaction: '',
  tag: 'endpoint-1',
  createdAt: NOW,
  updatedAt: NOW,
  version: 0,
  ...o,
})

let sql: Store | undefined
const stores: Record<string, () => Promise<HoldStore>> = {
  memory: async () => memoryHoldStore(),
  daemon: async () => sellerHoldStore((sql = await openTestStore())),
}
afterEach(async () => {
  await sql?.close()
  sql = undefined
})

describe.each(Object.keys(stores))('HoldStore (%s)', (name) => {
  it("records a payment once and reads it back as written, whatever the id's case", async () => {
    const s = await stores[name]!()
    expect(await s.insert(record())).toBe(true)
    expect(await s.insert(record({ status: 'held' }))).toBe(false)
    expect(await s.get(ID.toLowerCase() as Hex)).toEqual({ ...record(), id: name === 'memory' ? ID : ID.toLowerCase() })
    expect(await s.get(`0x${'cd'.repeat(32)}`)).toBeUndefined()
  })

  it('applies an update only at the version read; the loser of a race changes nothing', async () => {
    const s = await stores[name]!()
    await s.insert(record())
    expect(await s.update(ID, 0, { status: 'held', authorizeTransaction: '0xaa' })).toBe(true)
    expect(await s.update(ID, 0, { status: 'failed' })).toBe(false)
    const [a, b] = await Promise.all([
      s.update(ID, 1, { captured: '600', voided: '400', status: 'captured' }),
      s.update(ID, 1, { captured: '1000', status: 'captured' }),
    ])
    expect([a, b].filter(Boolean)).toHaveLength(1)
    const r = (await s.get(ID))!
    expect(r.version).toBe(2)
    expect(r.authorizeTransaction).toBe('0xaa')
    expect(['600', '1000']).toContain(r.captured)
  })

  it('lists by status, oldest first', async () => {
    const s = await stores[name]!()
    await s.insert(record({ id: `0x${'03'.repeat(32)}`, status: 'held', createdAt: NOW + 2 }))
    await s.insert(record({ id: `0x${'04'.repeat(32)}`, status: 'held', createdAt: NOW + 1 }))
    await s.insert(record({ id: `0x${'05'.repeat(32)}`, status: 'voided' }))
    expect((await s.list(['held'])).map((r) => r.id.slice(0, 4))).toEqual(['0x04', '0x03'])
    expect(await s.list(['captured'])).toEqual([])
  })
})
