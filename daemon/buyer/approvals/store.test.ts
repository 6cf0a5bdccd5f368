import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import type { AgentRow } from '../../platform/store.js'
import type { Store } from '../../store/store.js'
import { type ApprovalGateDeps, gateApproval, requestHash } from './gate.js'
import { type ApprovalRow, type ApprovalStore, approvalStore, stateOf } from './store.js'

/**
 * The approvals' state machine in the store (SQLite and PostgreSQL: storeSensitive): pending ->
 * approved -> consumed exactly once, also when two consumers race; denied and expired are never
 * usable; an approval is bound to its agent, its request and its amount. Times are passed in, not waited for.
 */
let store: Store
let approvals: ApprovalStore
const userId = randomUUID()
const agentId = randomUUID()
const REQ = { url: 'https://seller.example/report', method: 'GET' }
const HASH = requestHash(REQ)
const T0 = 1_800_000_000_000
const TTL = 900_000

const ask = (now = T0) =>
  approvals.create(
    {
      agent_id: agentId,
      user_id: userId,
      kind: 'pay',
      request_hash: HASH,
      target: REQ.url,
      method: 'GET',
      amount: '6',
      token: 'USDC',
      amountMicros: 6_000_000n,
    },
    TTL,
    now,
  )
const use = (
  id: string,
  now = T0 + 1000,
  over: Partial<{ agentId: string; requestHash: string; amountMicros: bigint }> = {},
) => approvals.consume(id, { agentId, requestHash: HASH, amountMicros: 6_000_000n, ...over }, now)
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string; fields?: Record<string, unknown> }) =>
      `${e.code}${e.fields?.state ? `:${e.fields.state}` : ''}`,
  )

beforeEach(async () => {
  store = await openTestStore()
  approvals = approvalStore(store)
})
afterEach(async () => {
  await store?.close()
})

describe('approvals store', () => {
  it('pending -> approved -> consumed once; a second use, or a second decision, is refused', async () => {
    const a = await ask()
    expect(stateOf(a, T0)).toBe('pending')
    expect(await codeOf(use(a.id))).toBe('APPROVAL_REQUIRED:pending')
    expect((await approvals.decide(a.id, userId, 'approved', T0 + 10)).state).toBe('approved')
    expect(await codeOf(approvals.decide(a.id, userId, 'denied', T0 + 20))).toBe('APPROVAL_NOT_PENDING:approved')
    expect((await use(a.id)).state).toBe('consumed')
    expect(await codeOf(use(a.id))).toBe('APPROVAL_NOT_USABLE:consumed')
    expect((await approvals.get(a.id))!.state).toBe('consumed')
  })

  it('two consumers racing on one approval: exactly one wins', async () => {
    const a = await ask()
    await approvals.decide(a.id, userId, 'approved', T0 + 10)
    const results = await Promise.all([use(a.id), use(a.id), use(a.id)].map((p) => codeOf(p)))
    expect(results.filter((r) => r === 'ok')).toHaveLength(1)
    expect(results.filter((r) => r === 'APPROVAL_NOT_USABLE:consumed')).toHaveLength(2)
  })

  it('denied is never usable; expired can be neither decided nor used', async () => {
    const d = await ask()
    await approvals.decide(d.id, userId, 'denied', T0 + 10)
    expect(await codeOf(use(d.id))).toBe('APPROVAL_NOT_USABLE:denied')
    const late = await ask()
    expect(await codeOf(approvals.decide(late.id, userId, 'approved', T0 + TTL))).toBe('APPROVAL_NOT_PENDING:expired')
    const approvedThenLate = await ask()
    await approvals.decide(approvedThenLate.id, userId, 'approved', T0 + 10)
    expect(await codeOf(use(approvedThenLate.id, T0 + TTL + 1))).toBe('APPROVAL_NOT_USABLE:expired')
    expect((await approvals.listForUser(userId, { pending: true, now: T0 + 10 })).map((r) => r.id)).toEqual([late.id])
    expect(await approvals.listForUser(userId, { pending: true, now: T0 + TTL })).toEqual([])
  })

  it('bound to its agent, its request and at most its amount; another user cannot decide it', async () => {
    const a = await ask()
    expect(await codeOf(approvals.decide(a.id, randomUUID(), 'approved', T0 + 10))).toBe('NOT_FOUND')
    await approvals.decide(a.id, userId, 'approved', T0 + 10)
    expect(await codeOf(use(a.id, T0 + 20, { agentId: randomUUID() }))).toBe('NOT_FOUND')
    expect(
      await codeOf(use(a.id, T0 + 20, { requestHash: requestHash({ ...REQ, url: 'https://other.example/' }) })),
    ).toBe('APPROVAL_NOT_USABLE:approved')
    expect(await codeOf(use(a.id, T0 + 20, { amountMicros: 6_000_001n }))).toBe('APPROVAL_NOT_USABLE:approved')
    expect(await codeOf(use(a.id, T0 + 20, { amountMicros: 5_000_000n }))).toBe('ok')
  })
})

describe('gateApproval', () => {
  const agent = (approveAboveUsd: string | null) =>
    ({ id: agentId, user_id: userId, approve_above_usd: approveAboveUsd }) as AgentRow
  const requested: ApprovalRow[] = []
  const deps = (): ApprovalGateDeps => ({
    approvals,
    ttlSeconds: 900,
    onRequested: async (r) => void requested.push(r),
  })
  const spend = (amountMicros: bigint, approvalId?: string) => ({
    kind: 'pay' as const,
    request: REQ,
    target: REQ.url,
    method: 'GET',
    amount: '6',
    token: 'USDC',
    amountMicros,
    approvalId,
  })

  it('passes at or under the threshold or without one; above it holds a pending approval and tells the owner', async () => {
    await gateApproval(deps(), agent(null), spend(10n ** 12n))
    await gateApproval(deps(), agent('5'), spend(5_000_000n))
    const held = await gateApproval(deps(), agent('5'), spend(5_000_001n)).then(
      () => undefined,
      (e) => e,
    )
    expect(held).toMatchObject({ code: 'APPROVAL_REQUIRED', fields: { state: 'pending' } })
    const id = held.fields.approvalId as string
    expect(requested.map((r) => r.id)).toEqual([id])
    expect(await codeOf(gateApproval(deps(), agent('5'), spend(5_000_001n, id)))).toBe('APPROVAL_REQUIRED:pending')
    await approvals.decide(id, userId, 'approved')
    expect(await codeOf(gateApproval(deps(), agent('5'), spend(5_000_001n, id)))).toBe('ok')
    expect(await codeOf(gateApproval(deps(), agent('5'), spend(5_000_001n, id)))).toBe('APPROVAL_NOT_USABLE:consumed')
  })
})
