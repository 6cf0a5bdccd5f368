import type { Selectable } from 'kysely'
import type { Store } from '../store/store.js'
import type { X402SettlementsTable } from '../store/tables/facilitator.js'

export type SettlementRow = Pick<Selectable<X402SettlementsTable>, 'id' | 'auth_key' | 'network' | 'method' | 'payer' | 'state' | 'tx' | 'reason' | 'message' | 'updated_at'>

export type Claim = { network: string; method: string; payer?: string; payTo: string; asset: string; amount: string }

export type SettlementStore = {
  /** Takes the authorization for this settle, or returns the live row that already has it. */
  claim(key: string, c: Claim): Promise<{ id: number } | { existing: SettlementRow }>
  /** The live (pending or settled) row of an authorization, if any. */
  live(key: string): Promise<SettlementRow | undefined>
  settled(id: number, tx: string, payer: string): Promise<void>
  /** A failure releases the authorization: a later settle may try again. */
  failed(id: number, f: { reason: string; message: string; tx?: string; payer?: string }): Promise<void>
  /** Broadcast, fate unknown: the row stays pending (the authorization stays claimed) but names its transaction. */
  broadcast(id: number, tx: string): Promise<void>
  /** Rows left pending by a stop mid-settlement, for reconciliation at start. */
  pending(): Promise<SettlementRow[]>
  /** Settled rows that name one of these transactions (ones the outbox replayed or failed). */
  settledIn(txs: string[]): Promise<SettlementRow[]>
  /** The id the next row will get: rows below it existed before this moment. */
  nextId(): Promise<number>
}

const columns = ['id', 'auth_key', 'network', 'method', 'payer', 'state', 'tx', 'reason', 'message', 'updated_at'] as const

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
    db.selectFrom('x402_settlements').select(columns).where('auth_key', '=', key).where('state', 'in', ['pending', 'settled']).executeTakeFirst()
  const finish = async (id: number, f: { state: 'settled' | 'failed'; tx: string | null; payer: string | null; reason: string | null; message: string | null }) => {
    await db.updateTable('x402_settlements')
      .set((eb) => ({ state: f.state, tx: f.tx, reason: f.reason, message: f.message, payer: eb.fn.coalesce(eb.val(f.payer), 'payer'), updated_at: now() }))
      .where('id', '=', id).execute()
  }

  return {
    async claim(key, c) {
      for (;;) {
        const t = now()
        const won = await db.insertInto('x402_settlements')
          .values({ auth_key: key, network: c.network, method: c.method, payer: c.payer ?? null, pay_to: c.payTo, asset: c.asset, amount: c.amount, state: 'pending', created_at: t, updated_at: t })
          .onConflict((oc) => oc.doNothing())
          .returning('id').executeTakeFirst()
        if (won) return { id: Number(won.id) }
        const existing = await live(key)
        // The live row can vanish between the two statements only if its settle just failed: try again.
        if (existing) return { existing }
      }
    },
    live,
    settled: (id, tx, payer) => finish(id, { state: 'settled', tx, payer, reason: null, message: null }),
    failed: (id, f) => finish(id, { state: 'failed', tx: f.tx ?? null, payer: f.payer ?? null, reason: f.reason, message: f.message }),
    async broadcast(id, tx) {
      await db.updateTable('x402_settlements').set({ tx, updated_at: now() }).where('id', '=', id).execute()
    },
    async settledIn(txs) {
      if (txs.length === 0) return []
      return db.selectFrom('x402_settlements').select(columns).where('state', '=', 'settled').where('tx', 'in', txs).orderBy('id').execute()
    },
    pending: () => db.selectFrom('x402_settlements').select(columns).where('state', '=', 'pending').orderBy('id').execute(),
    async nextId() {
      const r = await db.selectFrom('x402_settlements').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst()
      return Number(r?.max ?? 0) + 1
    },
  }
}
