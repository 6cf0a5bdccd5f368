import type { Selectable } from 'kysely'
import type { Store } from '../store/store.js'
import type { X402SettlementsTable } from '../store/tables/facilitator.js'

export type SettlementRow = Pick<
  Selectable<X402SettlementsTable>,
  | 'id'
  | 'auth_key'
  | 'network'
  | 'method'
  | 'payer'
  | 'pay_to'
  | 'amount'
  | 'state'
  | 'tx'
  | 'reason'
  | 'message'
  | 'updated_at'
  | 'reported'
>

export type Claim = { network: string; method: string; payer?: string; payTo: string; asset: string; amount: string }

export type SettlementStore = {
  /** Takes the authorization for this settle, or returns the live row that already has it. */
  claim(key: string, c: Claim): Promise<{ id: number } | { existing: SettlementRow }>
  /** The live (pending or settled) row of an authorization, if any. */
  live(key: string): Promise<SettlementRow | undefined>
  /** `reported`: the caller is told now (the settle's own success answer). */
  settled(id: number, tx: string, payer: string, o?: { reported?: boolean }): Promise<void>
  /** A failure releases the authorization: a later settle may try again. */
  failed(id: number, f: { reason: string; message: string; tx?: string; payer?: string }): Promise<void>
  /** Broadcast, fate unknown: the row stays pending (the authorization stays claimed) but names its transaction. */
  broadcast(id: number, tx: string, payer?: string): Promise<void>
  /**
   * A settled row whose transaction was broadcast again and is not mined yet: pending (fate unknown) again; false when
   * it was not settled.
   */
  reopen(id: number): Promise<boolean>
  /** Rows left pending by a stop mid-settlement, for reconciliation at start. */
  pending(): Promise<SettlementRow[]>
  /** Settled rows that name one of these transactions (ones the outbox replayed or failed). */
  settledIn(txs: string[]): Promise<SettlementRow[]>
  /** The id the next row will get: rows below it existed before this moment. */
  nextId(): Promise<number>
  byId(id: number): Promise<SettlementRow | undefined>
  /** Every attempt that names this transaction (a batch settles many payments in one). */
  byTx(tx: string): Promise<SettlementRow[]>
  /** Decides a pending row once; false when something else (a retry, the sweep) decided it first. */
  decide(
    id: number,
    f: { state: 'settled'; tx: string; payer: string } | { state: 'failed'; reason: string; message: string },
  ): Promise<boolean>
  /**
   * Takes the one right to tell a caller that a row settled in the background did settle: true for
   * exactly one caller (the seller's retry after `settlement_pending`), false once it was told.
   */
  report(id: number): Promise<boolean>
}

const columns = [
  'id',
  'auth_key',
  'network',
  'method',
  'payer',
  'pay_to',
  'amount',
  'state',
  'tx',
  'reason',
  'message',
  'updated_at',
  'reported',
] as const

/**
 * The settle-at-most-once ledger. The partial unique index on live rows (migration 200) makes the
 * claim atomic in the database itself: of any number of concurrent settles of one authorization,
 * on one process or on replicas sharing PostgreSQL, exactly one insert succeeds. Each call is one
 * statement, committed before the caller continues.
 */
export function settlementStore(store: Store): SettlementStore {
  const { db } = store
  const now = () => Date.now()
  const live = (key: string) =>
    db
      .selectFrom('x402_settlements')
      .select(columns)
      .where('auth_key', '=', key)
      .where('state', 'in', ['pending', 'settled'])
      .executeTakeFirst()
  const finish = async (
    id: number,
    f: {
      state: 'settled' | 'failed'
      tx: string | null
      payer: string | null
      reason: string | null
      message: string | null
      reported?: boolean
    },
  ) => {
    await db
      .updateTable('x402_settlements')
      .set((eb) => ({
        state: f.state,
        tx: f.tx,
        reason: f.reason,
        message: f.message,
        payer: eb.fn.coalesce(eb.val(f.payer), 'payer'),
        updated_at: now(),
        ...(f.reported ? { reported: 1 } : {}),
      }))
      .where('id', '=', id)
      .execute()
  }

  return {
    async claim(key, c) {
      for (;;) {
        const t = now()
        const won = await db
          .insertInto('x402_settlements')
          .values({
            auth_key: key,
            network: c.network,
            method: c.method,
            payer: c.payer ?? null,
            pay_to: c.payTo,
            asset: c.asset,
            amount: c.amount,
            state: 'pending',
            created_at: t,
            updated_at: t,
            reported: 0,
          })
          .onConflict((oc) => oc.doNothing())
          .returning('id')
          .executeTakeFirst()
        if (won) return { id: Number(won.id) }
        const existing = await live(key)
        // The live row can vanish between the two statements only if its settle just failed: try again.
        if (existing) return { existing }
      }
    },
    live,
    settled: (id, tx, payer, o) =>
      finish(id, { state: 'settled', tx, payer, reason: null, message: null, reported: o?.reported }),
    failed: (id, f) =>
      finish(id, { state: 'failed', tx: f.tx ?? null, payer: f.payer ?? null, reason: f.reason, message: f.message }),
    async broadcast(id, tx, payer) {
      await db
        .updateTable('x402_settlements')
        .set((eb) => ({ tx, payer: eb.fn.coalesce(eb.val(payer ?? null), 'payer'), updated_at: now() }))
        .where('id', '=', id)
        .execute()
    },
    async reopen(id) {
      const r = await db
        .updateTable('x402_settlements')
        .set({ state: 'pending', updated_at: now() })
        .where('id', '=', id)
        .where('state', '=', 'settled')
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
    async settledIn(txs) {
      if (txs.length === 0) return []
      return db
        .selectFrom('x402_settlements')
        .select(columns)
        .where('state', '=', 'settled')
        .where('tx', 'in', txs)
        .orderBy('id')
        .execute()
    },
    pending: () =>
      db.selectFrom('x402_settlements').select(columns).where('state', '=', 'pending').orderBy('id').execute(),
    async nextId() {
      const r = await db
        .selectFrom('x402_settlements')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirst()
      return Number(r?.max ?? 0) + 1
    },
    byId: (id) => db.selectFrom('x402_settlements').select(columns).where('id', '=', id).executeTakeFirst(),
    byTx: (tx) => db.selectFrom('x402_settlements').select(columns).where('tx', '=', tx).orderBy('id').execute(),
    async decide(id, f) {
      const set =
        f.state === 'settled'
          ? { state: f.state, tx: f.tx, payer: f.payer, reason: null, message: null, updated_at: now() }
          : { state: f.state, reason: f.reason, message: f.message, updated_at: now() }
      const r = await db
        .updateTable('x402_settlements')
        .set(set)
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
    async report(id) {
      const r = await db
        .updateTable('x402_settlements')
        .set({ reported: 1 })
        .where('id', '=', id)
        .where('reported', '=', 0)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
  }
}
