import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DECIDED_SHOWN } from '../../src/sdk/dashboard/approvals.js'
import { openTestStore } from '../../test/helpers/store.js'
import { type ApprovalStore, approvalStore } from '../buyer/approvals/store.js'
import type { Store } from '../store/store.js'
import { dashboardApprovals } from './approvals.js'

/**
 * The approvals view over the real approvals store (SQLite and PostgreSQL: daemon/dashboard/** is
 * storeSensitive): pending and decided split at `now`, names and hosts added, the decided list
 * capped, decisions once and only by the owning user. Times are passed in, not waited for.
 */
let store: Store
let approvals: ApprovalStore
const userId = randomUUID()
const agentId = randomUUID()
const T0 = 1_800_000_000_000
const TTL = 900_000

const ask = (target: string, at: number, kind: 'pay' | 'send' = 'pay') =>
  approvals.create(
    {
      agent_id: agentId,
      user_id: userId,
      kind,
      request_hash: `${target}:${at}`,
      target,
      method: kind === 'pay' ? 'GET' : null,
      amount: '6',
      token: 'PUSD',
      amountMicros: 6_000_000n,
    },
    TTL,
    at,
  )
const view = (owner = userId) =>
  dashboardApprovals({
    approvals,
    agents: async (u) => (u === userId ? [{ id: agentId, name: 'buyer' }] : []),
    log: { info: () => {} },
    userOf: async () => ({ id: owner }),
  })
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string }) => e.code,
  )

beforeEach(async () => {
  store = await openTestStore()
  approvals = approvalStore(store)
})
afterEach(async () => {
  await store?.close()
})

describe('dashboard approvals view', () => {
  it("splits pending from decided at now, with the agent's name and the seller host (none for a send or a target that is no URL)", async () => {
    const pay = await ask('https://seller.example:8443/report?x=1', T0)
    const send = await ask('0x00000000000000000000000000000000000000aa', T0 + 1, 'send')
    const odd = await ask('not a url', T0 + 2)
    const old = await ask('https://old.example/', T0 - TTL)
    const denied = await ask('https://denied.example/', T0 + 3)
    await approvals.decide(denied.id, userId, 'denied', T0 + 4)
    const r = await view().list('0xwallet', T0 + 10)
    expect(r.pending.map((a) => [a.id, a.agentName, a.host, a.state])).toEqual([
      [odd.id, 'buyer', null, 'pending'],
      [send.id, 'buyer', null, 'pending'],
      [pay.id, 'buyer', 'seller.example:8443', 'pending'],
    ])
    expect(r.decided.map((a) => [a.id, a.host, a.state])).toEqual([
      [denied.id, 'denied.example', 'denied'],
      [old.id, 'old.example', 'expired'],
    ])
    // Past their expiry the pending ones are listed as decided: expired.
    const later = await view().list('0xwallet', T0 + TTL + 2)
    expect(later.pending).toEqual([])
    expect(later.decided.find((a) => a.id === pay.id)?.state).toBe('expired')
    expect(await view(randomUUID()).list('0xother', T0 + 10)).toEqual({ pending: [], decided: [] })
  })

  it(`lists at most ${DECIDED_SHOWN} decided, newest first`, async () => {
    const ids: string[] = []
    for (let i = 0; i < DECIDED_SHOWN + 5; i++) {
      const a = await ask(`https://s${i}.example/`, T0 + i)
      await approvals.decide(a.id, userId, 'denied', T0 + i)
      ids.push(a.id)
    }
    const r = await view().list('0xwallet', T0 + 100)
    expect(r.decided.map((a) => a.id)).toEqual(ids.reverse().slice(0, DECIDED_SHOWN))
  })

  it("decides once, and only the owning user's", async () => {
    const a = await ask('https://seller.example/report', Date.now())
    expect(await codeOf(view(randomUUID()).decide('0xother', a.id, 'approved'))).toBe('NOT_FOUND')
    const approved = await view().decide('0xwallet', a.id, 'approved')
    expect(approved).toMatchObject({ id: a.id, state: 'approved', agentName: 'buyer', host: 'seller.example' })
    expect(await codeOf(view().decide('0xwallet', a.id, 'denied'))).toBe('APPROVAL_NOT_PENDING')
    expect((await approvals.get(a.id))!.state).toBe('approved')
  })
})
