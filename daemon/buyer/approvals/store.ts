import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import { BaseError } from '../../../src/errors/index.js'
import type { Store } from '../../store/store.js'
import type { PlatformApprovalsTable } from '../../store/tables/approvals.js'

export type ApprovalRow = Selectable<PlatformApprovalsTable>
/** What a row is as shown: `expired` is not stored, it is a pending or approved row past expires_at. */
export type ApprovalState = ApprovalRow['state'] | 'expired'

export type NewApproval = Pick<
  ApprovalRow,
  'agent_id' | 'user_id' | 'kind' | 'request_hash' | 'target' | 'method' | 'amount' | 'token'
> & { amountMicros: bigint }

/** A row's state at `now`: a row neither consumed nor denied is expired once past expires_at. */
export function stateOf(r: Pick<ApprovalRow, 'state' | 'expires_at'>, now = Date.now()): ApprovalState {
  if ((r.state === 'pending' || r.state === 'approved') && Number(r.expires_at) <= now) return 'expired'
  return r.state
}

/**
 * The approvals' state machine, in the store: pending -> approved | denied (the owner, once),
 * approved -> consumed (the agent's retry, once). Every transition is one conditional UPDATE on
 * the row's current state and expiry, so two replicas or two retries racing on one approval
 * cannot both win: the store answers one of them with 0 rows changed.
 */
export type ApprovalStore = {
  create(a: NewApproval, ttlMs: number, now?: number): Promise<ApprovalRow>
  get(id: string): Promise<ApprovalRow | undefined>
  /** A user's approvals, newest first; `pending` only those still awaiting a decision and not expired. */
  listForUser(userId: string, p?: { pending?: boolean; limit?: number; now?: number }): Promise<ApprovalRow[]>
  listForAgent(agentId: string, p?: { pending?: boolean; limit?: number; now?: number }): Promise<ApprovalRow[]>
  /** pending -> approved or denied; throws APPROVAL_NOT_PENDING when it was decided already or expired. */
  decide(id: string, userId: string, decision: 'approved' | 'denied', now?: number): Promise<ApprovalRow>
  /**
   * approved -> consumed for this agent and the same request costing at most what was approved.
   * Returns the row when this call consumed it; throws APPROVAL_REQUIRED (still pending) or
   * APPROVAL_NOT_USABLE (denied, expired, consumed, or another request) otherwise.
   */
  consume(
    id: string,
    c: { agentId: string; requestHash: string; amountMicros: bigint },
    now?: number,
  ): Promise<ApprovalRow>
}

export function approvalStore(store: Store): ApprovalStore {
  const { db } = store
  const get = (id: string) => db.selectFrom('platform_approvals').selectAll().where('id', '=', id).executeTakeFirst()
  const list = (
    col: 'user_id' | 'agent_id',
    v: string,
    p: { pending?: boolean; limit?: number; now?: number } = {},
  ) => {
    let q = db.selectFrom('platform_approvals').selectAll().where(col, '=', v)
    if (p.pending) q = q.where('state', '=', 'pending').where('expires_at', '>', p.now ?? Date.now())
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(p.limit ?? 100)
      .execute()
  }
  return {
    async create(a, ttlMs, now = Date.now()) {
      const row: ApprovalRow = {
        id: randomUUID(),
        agent_id: a.agent_id,
        user_id: a.user_id,
        kind: a.kind,
        request_hash: a.request_hash,
        target: a.target,
        method: a.method,
        amount: a.amount,
        token: a.token,
        amount_micros: a.amountMicros.toString(),
        state: 'pending',
        created_at: now,
        expires_at: now + ttlMs,
        decided_at: null,
        consumed_at: null,
      }
      await db.insertInto('platform_approvals').values(row).execute()
      return row
    },
    get,
    listForUser: (userId, p) => list('user_id', userId, p),
    listForAgent: (agentId, p) => list('agent_id', agentId, p),
    async decide(id, userId, decision, now = Date.now()) {
      const r = await db
        .updateTable('platform_approvals')
        .set({ state: decision, decided_at: now })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('state', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst()
      const row = await get(id)
      if (!row || row.user_id !== userId) throw new BaseError('NOT_FOUND', `no approval ${id} for this key`)
      if (Number(r.numUpdatedRows) === 0) {
        const state = stateOf(row, now)
        throw new BaseError(
          'APPROVAL_NOT_PENDING',
          `approval ${id} is ${state}, not pending: it cannot be ${decision} now`,
          { fields: { approvalId: id, state } },
        )
      }
      return row
    },
    async consume(id, c, now = Date.now()) {
      const row = await get(id)
      if (!row || row.agent_id !== c.agentId) throw new BaseError('NOT_FOUND', `no approval ${id} for this agent`)
      if (row.request_hash !== c.requestHash) {
        throw notUsable(
          row,
          'was asked for another request (URL, method, body, maxAmount or protocol; for send: to, amount, token)',
          now,
        )
      }
      if (c.amountMicros > BigInt(row.amount_micros))
        throw notUsable(row, `approved ${row.amount} ${row.token}, and the price is now higher`, now)
      const state = stateOf(row, now)
      if (state === 'pending') throw approvalRequired(row, 'is still pending: the owning user has not decided yet')
      if (state !== 'approved') throw notUsable(row, `is ${state}`, now)
      const r = await db
        .updateTable('platform_approvals')
        .set({ state: 'consumed', consumed_at: now })
        .where('id', '=', id)
        .where('state', '=', 'approved')
        .where('expires_at', '>', now)
        .executeTakeFirst()
      // Another replica or retry consumed it between the read and this update.
      if (Number(r.numUpdatedRows) === 0) throw notUsable((await get(id))!, 'was used by another request', now)
      return { ...row, state: 'consumed', consumed_at: now }
    },
  }
}

/** The answer to a held pay or send: not refused, waiting for the owner; nothing was signed. */
export function approvalRequired(row: ApprovalRow, why = 'waits for the owning user'): BaseError {
  return new BaseError(
    'APPROVAL_REQUIRED',
    `${row.amount} ${row.token} is above this agent's approval ` +
      `threshold: approval ${row.id} ${why}; nothing was signed or paid`,
    {
      details:
        `Wait (parx pay --wait-approval, or GET /api/approvals/${row.id}) and ` +
        `send the same request again with approvalId ${row.id} once it is approved.`,
      fields: {
        approvalId: row.id,
        state: 'pending',
        expiresAt: new Date(Number(row.expires_at)).toISOString(),
        amount: row.amount,
        token: row.token,
      },
    },
  )
}

function notUsable(row: ApprovalRow, why: string, now: number): BaseError {
  return new BaseError('APPROVAL_NOT_USABLE', `approval ${row.id} ${why}; nothing was signed or paid`, {
    details: 'Send the request without approvalId to ask for a new approval.',
    fields: { approvalId: row.id, state: stateOf(row, now) },
  })
}
