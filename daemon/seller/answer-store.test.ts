import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AnswerStore,
  type ClaimParams,
  type KeptAnswer,
  memoryAnswerStore,
} from '../../src/sdk/x402/seller/answers/store.js'
import { openTestStore, testStoreUrl } from '../../test/helpers/store.js'
import { openStore, type Store } from '../store/store.js'
import { sellerAnswerStore } from './answer-store.js'

/**
 * What every AnswerStore keeps (issue 39 item 4), in memory and in the daemon's store (SQLite, and
 * PostgreSQL in the `postgres` project): one request serves a payment id, a repeat is busy until it
 * keeps or releases it, then gets the kept answer; another payload is refused; a lease that ended
 * is taken over; answers expire after the window. On the daemon's store, two replicas (two
 * connections to one database) share all of it.
 */
const NOW = 1_800_000_000_000
const answer: KeptAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json', 'payment-response': 'abc' },
  body: Buffer.from('{"order":1}').toString('base64'),
}
const claim = (o: Partial<ClaimParams> = {}): ClaimParams => ({
  key: 'k1',
  fingerprint: 'f1',
  owner: 'a',
  now: NOW,
  leaseUntil: NOW + 90_000,
  expiresAt: NOW + 600_000,
  ...o,
})

const opened: Store[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()))
})
const stores: Record<string, () => Promise<AnswerStore>> = {
  memory: async () => memoryAnswerStore(),
  daemon: async () => {
    const s = await openTestStore()
    opened.push(s)
    return sellerAnswerStore(s)
  },
}

for (const [name, open] of Object.entries(stores)) {
  describe(`${name} answer store`, () => {
    it('one request serves an id; a repeat is busy, then answered what was kept; another payload is refused', async () => {
      const s = await open()
      expect(await s.claim(claim())).toEqual({ kind: 'run' })
      expect(await s.claim(claim({ owner: 'b' }))).toEqual({ kind: 'busy' })
      expect(await s.claim(claim({ owner: 'c', fingerprint: 'f2' }))).toEqual({ kind: 'mismatch' })
      expect(await s.keep({ key: 'k1', owner: 'a', answer, bytes: 100, now: NOW + 10 })).toBe(true)
      expect(await s.claim(claim({ owner: 'b', now: NOW + 20 }))).toEqual({ kind: 'answer', answer })
      expect(await s.claim(claim({ owner: 'c', fingerprint: 'f2', now: NOW + 20 }))).toEqual({ kind: 'mismatch' })
      // Past the window (10 minutes) the id is free again.
      expect(
        await s.claim(
          claim({ owner: 'd', now: NOW + 10 + 600_001, leaseUntil: NOW + 700_000, expiresAt: NOW + 1_300_000 }),
        ),
      ).toEqual({ kind: 'run' })
    })

    it('a released id (nothing charged) is served anew; a lease that ended is taken over by the same payment only', async () => {
      const s = await open()
      expect(await s.claim(claim())).toEqual({ kind: 'run' })
      await s.release('k1', 'b') // not the holder: nothing happens
      expect(await s.claim(claim({ owner: 'b' }))).toEqual({ kind: 'busy' })
      await s.release('k1', 'a')
      expect(await s.claim(claim({ owner: 'b' }))).toEqual({ kind: 'run' })
      // b's process stopped: once its lease ended, another payload is still refused, the same payment served.
      expect(await s.claim(claim({ owner: 'c', fingerprint: 'f2', now: NOW + 90_001 }))).toEqual({ kind: 'mismatch' })
      expect(await s.claim(claim({ owner: 'c', now: NOW + 90_001, leaseUntil: NOW + 180_000 }))).toEqual({
        kind: 'run',
      })
      // The old holder's late answer is not kept over the new holder's claim.
      expect(await s.keep({ key: 'k1', owner: 'b', answer, bytes: 100, now: NOW + 90_002 })).toBe(false)
      expect(await s.keep({ key: 'k1', owner: 'c', answer, bytes: 100, now: NOW + 90_003 })).toBe(true)
    })
  })
}

describe('memory answer store bounds', () => {
  it('keeps at most maxEntries answers and maxBytes in all, dropping the oldest', async () => {
    const s = memoryAnswerStore({ maxEntries: 2, maxBytes: 250 })
    for (const k of ['a', 'b', 'c']) {
      await s.claim(claim({ key: k, owner: k }))
      await s.keep({ key: k, owner: k, answer, bytes: 100, now: NOW })
    }
    expect((await s.claim(claim({ key: 'a', owner: 'x' }))).kind).toBe('run')
    expect((await s.claim(claim({ key: 'c', owner: 'x' }))).kind).toBe('answer')
  })
})

describe('daemon answer store, two replicas on one database', () => {
  it('shares claims and answers: a repeat reaching the other replica waits, then gets the first answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parx-answers-'))
    try {
      // Two processes' stores: one PostgreSQL database, or one SQLite file.
      const url = await testStoreUrl()
      const open = () => openStore({ file: join(dir, 'parx.db'), url })
      const [one, two] = [await open(), await open()]
      opened.push(one, two)
      const a = sellerAnswerStore(one)
      const b = sellerAnswerStore(two)
      expect(await a.claim(claim())).toEqual({ kind: 'run' })
      expect(await b.claim(claim({ owner: 'b' }))).toEqual({ kind: 'busy' })
      expect(await a.keep({ key: 'k1', owner: 'a', answer, bytes: 100, now: NOW + 5 })).toBe(true)
      expect(await b.claim(claim({ owner: 'b', now: NOW + 6 }))).toEqual({ kind: 'answer', answer })
      expect(await b.claim(claim({ owner: 'b', fingerprint: 'f2', now: NOW + 6 }))).toEqual({ kind: 'mismatch' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
