import type { Selectable } from 'kysely'
import type { Store } from '../store/store.js'
import type { X402PaymentIdsTable } from '../store/tables/facilitator.js'

export type PaymentIdRow = Selectable<X402PaymentIdsTable>

export type PaymentIdStore = {
  /**
   * The row of (scope, paymentId), created for this fingerprint when the id is new. The caller
   * compares fingerprints: the unique index means whichever payload inserted first owns the id.
   */
  bind(b: { scope: string; paymentId: string; fingerprint: string; network: string }): Promise<PaymentIdRow>
  /** Stores the first decided /verify answer; a later one does not replace it. */
  saveVerify(id: number, answer: unknown): Promise<void>
  /** Stores a decided /settle refusal; a later one does not replace it. */
  saveSettle(id: number, answer: unknown): Promise<void>
  /** Names the settlement attempt that settles this id (the latest, after a transient failure). */
  link(id: number, settlementId: number): Promise<void>
  /** Rows of a payment id, in one seller's scope or in all. */
  find(paymentId: string, scope?: string): Promise<PaymentIdRow[]>
  /** Rows whose settlement is one of these attempts (what the status route by transaction names). */
  bySettlements(ids: number[]): Promise<PaymentIdRow[]>
}

/** The payment-identifier ledger (migration 210); each call is one statement. */
export function paymentIdStore(store: Store): PaymentIdStore {
  const { db } = store
  const now = () => Date.now()
  const get = (scope: string, paymentId: string) =>
    db
      .selectFrom('x402_payment_ids')
      .selectAll()
      .where('scope', '=', scope)
      .where('payment_id', '=', paymentId)
      .executeTakeFirst()
  return {
    async bind(b) {
      const t = now()
      await db
        .insertInto('x402_payment_ids')
        .values({
          scope: b.scope,
          payment_id: b.paymentId,
          fingerprint: b.fingerprint,
          network: b.network,
          created_at: t,
          updated_at: t,
        })
        .onConflict((oc) => oc.doNothing())
        .execute()
      // Rows are never deleted, so the one the conflict named is there.
      return (await get(b.scope, b.paymentId))!
    },
    async saveVerify(id, answer) {
      await db
        .updateTable('x402_payment_ids')
        .set({ verify_answer: JSON.stringify(answer), updated_at: now() })
        .where('id', '=', id)
        .where('verify_answer', 'is', null)
        .execute()
    },
    async saveSettle(id, answer) {
      await db
        .updateTable('x402_payment_ids')
        .set({ settle_answer: JSON.stringify(answer), updated_at: now() })
        .where('id', '=', id)
        .where('settle_answer', 'is', null)
        .execute()
    },
    async link(id, settlementId) {
      await db
        .updateTable('x402_payment_ids')
        .set({ settlement_id: settlementId, updated_at: now() })
        .where('id', '=', id)
        .execute()
    },
    find(paymentId, scope) {
      let q = db.selectFrom('x402_payment_ids').selectAll().where('payment_id', '=', paymentId)
      if (scope !== undefined) q = q.where('scope', '=', scope)
      return q.orderBy('id').execute()
    },
    async bySettlements(ids) {
      if (ids.length === 0) return []
      return db.selectFrom('x402_payment_ids').selectAll().where('settlement_id', 'in', ids).execute()
    },
  }
}
