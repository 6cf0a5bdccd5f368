import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import { BaseError } from '../../src/errors/index.js'
import { policyOf } from '../platform/store.js'
import type { Store } from '../store/store.js'
import type { PlatformSpendsTable } from '../store/tables/platform.js'
import { budgetState, lockForSpend, spentByWindow } from './budget-store.js'
import { type BudgetState, WINDOW_MS, type WindowSpent } from './budgets.js'
import { refuseFrozen } from './freeze.js'
import { checkSpend } from './limits.js'
import { encodeProof, type PaymentProof } from './pay/proof.js'

export type SpendRow = Selectable<PlatformSpendsTable>

/** The rolling window of the daily limit. */
export const DAY_MS = WINDOW_MS.day

export type SpendRequest = {
  agentId: string
  kind: SpendRow['kind']
  amountMicros: bigint
  token: string
  amount: string
  recipient?: string
  /** pay only: the seller's host, checked against the allow-list */
  host?: string
}

/**
 * The spends ledger and the limit check. `reserve` reads the agent's and its user's budgets and
 * what counts in each window (daemon/buyer/budget-store.ts), checks the new spend
 * (daemon/buyer/limits.ts, budgets.ts) and inserts it as `reserved`, all in one transaction
 * that holds the user's row and then the agent's: on PostgreSQL `SELECT ... FOR UPDATE` locks, on
 * SQLite the store's single writer. Two concurrent spends on one agent, or on two agents of one
 * user, are therefore decided one after the other, and never both pass a limit only one fits. No
 * process memory is involved, so replicas sharing a PostgreSQL store are held to the same limits.
 */
export type SpendsLedger = {
  /** Throws AGENT_FROZEN or LIMIT_EXCEEDED (nothing recorded) or returns the reserved row. */
  reserve(r: SpendRequest): Promise<SpendRow>
  /** `tx` null: the chain shows the payment used but its transaction was not found. */
  confirm(id: string, p: { tx: string | null; userOp?: string | null }): Promise<void>
  /**
   * A pay spend's payment is signed: its proof and expiry are kept before the seller sees the
   * signature, so the spend can be decided from the chain by anyone later (the worker leader,
   * after a refusal or a crash). A reserved spend with them is released only once it has expired.
   */
  signed(id: string, proof: PaymentProof): Promise<void>
  /** The spend moved nothing: it stops counting. Not for a signed pay spend still valid (see `hold`). */
  release(id: string, reason: string): Promise<void>
  /** The seller did not settle and the chain shows nothing moved yet: the spend stays reserved; `reason` says why. */
  hold(id: string, reason: string): Promise<void>
  /**
   * Reserved signed spends whose payment expired by `nowSeconds` (unix seconds), oldest first: the worker's to decide.
   */
  expired(nowSeconds: number, limit?: number): Promise<(SpendRow & { network: string })[]>
  /**
   * Reserved (held ones included: a refused payment still valid on chain) plus confirmed spends of the rolling day, in
   * USD micro-units.
   */
  spentToday(agentId: string, now?: number): Promise<bigint>
  /**
   * The agent's and its user's limits and what counts in each window now (a read: the check that decides is inside
   * `reserve`).
   */
  budget(agentId: string, now?: number): Promise<BudgetState>
  /** What counts in each window across all of a user's agents. */
  userSpent(userId: string, now?: number): Promise<WindowSpent>
}

export function spendsLedger(store: Store): SpendsLedger {
  const { db } = store
  return {
    async reserve(r) {
      return db.transaction().execute(async (tx) => {
        const { agent, user } = await lockForSpend(tx, store.dialect, r.agentId)
        refuseFrozen(agent)
        const now = Date.now()
        checkSpend(await budgetState(tx, agent, user, now), policyOf(agent).allowedHosts, {
          amountMicros: r.amountMicros,
          host: r.host,
        })
        const row = await tx
          .insertInto('platform_spends')
          .values({
            id: randomUUID(),
            agent_id: r.agentId,
            kind: r.kind,
            amount_micros: r.amountMicros.toString(),
            token: r.token,
            amount: r.amount,
            recipient: r.recipient ?? null,
            host: r.host ?? null,
            state: 'reserved',
            tx: null,
            user_op: null,
            reason: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow()
        return row
      })
    },
    async confirm(id, p) {
      await db
        .updateTable('platform_spends')
        .set({ state: 'confirmed', tx: p.tx, user_op: p.userOp ?? null, updated_at: Date.now() })
        .where('id', '=', id)
        .execute()
    },
    async signed(id, proof) {
      await db
        .updateTable('platform_spends')
        .set({ proof: encodeProof(proof), valid_before: Number(proof.validBefore), updated_at: Date.now() })
        .where('id', '=', id)
        .where('state', '=', 'reserved')
        .execute()
    },
    async release(id, reason) {
      await db
        .updateTable('platform_spends')
        .set({ state: 'released', reason, updated_at: Date.now() })
        .where('id', '=', id)
        .where('state', '=', 'reserved')
        .execute()
    },
    async hold(id, reason) {
      await db
        .updateTable('platform_spends')
        .set({ reason, updated_at: Date.now() })
        .where('id', '=', id)
        .where('state', '=', 'reserved')
        .execute()
    },
    expired: (nowSeconds, limit = 100) =>
      db
        .selectFrom('platform_spends')
        .innerJoin('platform_agents', 'platform_agents.id', 'platform_spends.agent_id')
        .selectAll('platform_spends')
        .select('platform_agents.network')
        .where('platform_spends.state', '=', 'reserved')
        .where('platform_spends.valid_before', 'is not', null)
        .where('platform_spends.valid_before', '<=', nowSeconds)
        .orderBy('platform_spends.valid_before')
        .limit(limit)
        .execute(),
    spentToday: async (agentId, now = Date.now()) => (await spentByWindow(db, { agentId }, now)).day,
    async budget(agentId, now = Date.now()) {
      const agent = await db.selectFrom('platform_agents').selectAll().where('id', '=', agentId).executeTakeFirst()
      const user =
        agent && (await db.selectFrom('platform_users').selectAll().where('id', '=', agent.user_id).executeTakeFirst())
      if (!agent || !user) throw new BaseError('NOT_FOUND', `no agent ${agentId}`)
      return budgetState(db, agent, user, now)
    },
    userSpent: (userId, now = Date.now()) => spentByWindow(db, { userId }, now),
  }
}
