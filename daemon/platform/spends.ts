import { randomUUID } from 'node:crypto'
import { sql, type Selectable } from 'kysely'
import { BaseError } from '../../src/errors/index.js'
import type { Store } from '../store/store.js'
import type { PlatformSpendsTable } from '../store/tables/platform.js'
import { refuseFrozen } from './freeze.js'
import { checkSpend } from './limits.js'
import { encodeProof, type PaymentProof } from './pay/proof.js'
import { policyOf } from './store.js'

export type SpendRow = Selectable<PlatformSpendsTable>

/** The rolling window of the daily limit. */
export const DAY_MS = 86_400_000

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
 * The spends ledger and the limit check. `reserve` reads the agent's limits and what it spent in
 * the rolling day, checks the new spend (daemon/platform/limits.ts) and inserts it as `reserved`,
 * all in one transaction that holds the agent's row: on PostgreSQL a `SELECT ... FOR UPDATE`
 * lock, on SQLite the store's single writer. Two concurrent spends on one agent are therefore
 * decided one after the other, and never both pass a limit only one fits. No process memory is
 * involved, so replicas sharing a PostgreSQL store are held to the same limits.
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
  /** Reserved signed spends whose payment expired by `nowSeconds` (unix seconds), oldest first: the worker's to decide. */
  expired(nowSeconds: number, limit?: number): Promise<(SpendRow & { network: string })[]>
  /** Reserved (held ones included: a refused payment still valid on chain) plus confirmed spends of the rolling day, in USD micro-units. */
  spentToday(agentId: string, now?: number): Promise<bigint>
}

export function spendsLedger(store: Store): SpendsLedger {
  const { db } = store
  return {
    async reserve(r) {
      return db.transaction().execute(async (tx) => {
        let q = tx.selectFrom('platform_agents').selectAll().where('id', '=', r.agentId)
        if (store.dialect === 'postgres') q = q.forUpdate()
        const agent = await q.executeTakeFirst()
        if (!agent) throw new BaseError('NOT_FOUND', `no agent ${r.agentId}`)
        refuseFrozen(agent)
        const now = Date.now()
        const spent = await sumSince(tx, r.agentId, now - DAY_MS)
        checkSpend(policyOf(agent), { amountMicros: r.amountMicros, spentTodayMicros: spent, host: r.host })
        const row = await tx.insertInto('platform_spends').values({
          id: randomUUID(), agent_id: r.agentId, kind: r.kind, amount_micros: r.amountMicros.toString(), token: r.token, amount: r.amount,
          recipient: r.recipient ?? null, host: r.host ?? null, state: 'reserved', tx: null, user_op: null, reason: null, created_at: now, updated_at: now,
        }).returningAll().executeTakeFirstOrThrow()
        return row
      })
    },
    async confirm(id, p) {
      await db.updateTable('platform_spends').set({ state: 'confirmed', tx: p.tx, user_op: p.userOp ?? null, updated_at: Date.now() }).where('id', '=', id).execute()
    },
    async signed(id, proof) {
      await db.updateTable('platform_spends').set({ proof: encodeProof(proof), valid_before: Number(proof.validBefore), updated_at: Date.now() })
        .where('id', '=', id).where('state', '=', 'reserved').execute()
    },
    async release(id, reason) {
      await db.updateTable('platform_spends').set({ state: 'released', reason, updated_at: Date.now() }).where('id', '=', id).where('state', '=', 'reserved').execute()
    },
    async hold(id, reason) {
      await db.updateTable('platform_spends').set({ reason, updated_at: Date.now() }).where('id', '=', id).where('state', '=', 'reserved').execute()
    },
    expired: (nowSeconds, limit = 100) => db.selectFrom('platform_spends')
      .innerJoin('platform_agents', 'platform_agents.id', 'platform_spends.agent_id')
      .selectAll('platform_spends').select('platform_agents.network')
      .where('platform_spends.state', '=', 'reserved').where('platform_spends.valid_before', 'is not', null)
      .where('platform_spends.valid_before', '<=', nowSeconds)
      .orderBy('platform_spends.valid_before').limit(limit).execute(),
    spentToday: (agentId, now = Date.now()) => sumSince(db, agentId, now - DAY_MS),
  }
}

async function sumSince(db: Store['db'], agentId: string, since: number): Promise<bigint> {
  const rows = await countedRows(db, agentId, since)
  // Summed here rather than with SUM(): bigint columns come back as strings on PostgreSQL and numbers on SQLite.
  return rows.reduce((acc, r) => acc + BigInt(r.amount_micros), 0n)
}

/**
 * The spends that count against an agent's daily limit: those of the rolling day (reserved and
 * confirmed), and a channel's escrow whatever its age. A deposit is locked in the channel for up
 * to its withdraw delay, and its row's amount is what is still in escrow (daemon/platform/
 * channels/store.ts): it counts until it is back in the wallet (refunded, withdrawn) or charged
 * by vouchers (which count on their own day), never only for the day it was made. Likewise an
 * x402 auth-capture hold still `held` (daemon/platform/holds/): the seller may capture it until its
 * deadline, up to a week. The channel and hold columns are read here, in the one place the limits
 * are summed, so that every check agrees.
 */
export function countedRows(db: Store['db'], agentId: string, since: number): Promise<{ amount_micros: string | number | bigint; channel_id: string | null; channel_role: string | null }[]> {
  return db.selectFrom('platform_spends').select(['amount_micros', sql<string | null>`channel_id`.as('channel_id'), sql<string | null>`channel_role`.as('channel_role')])
    .where('agent_id', '=', agentId).where('state', '!=', 'released')
    .where((eb) => eb.or([
      eb('created_at', '>', since), eb(sql.ref('channel_role'), '=', 'deposit'),
      eb('id', 'in', eb.selectFrom('platform_agent_holds').select('spend_id').where('agent_id', '=', agentId).where('status', '=', 'held')),
    ]))
    .execute()
}
