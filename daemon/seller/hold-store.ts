import type { Selectable } from 'kysely'
import type { Hex } from 'viem'
import type { HoldRecord, HoldStatus, HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { PaymentRequirements } from '../../src/sdk/x402/types.js'
import type { Store } from '../store/store.js'
import type { X402SellerHoldsTable } from '../store/tables/seller.js'

type Row = Selectable<X402SellerHoldsTable>

const toRecord = (r: Row): HoldRecord => ({
  id: r.id as Hex,
  network: r.network,
  requirements: JSON.parse(r.requirements) as PaymentRequirements,
  paymentInfo: JSON.parse(r.payment_info) as Record<string, unknown>,
  saltNonce: r.salt_nonce as Hex,
  payer: r.payer,
  payTo: r.pay_to,
  maxAmount: r.max_amount,
  status: r.status as HoldStatus,
  captured: r.captured,
  voided: r.voided,
  refunded: r.refunded,
  captureDeadline: Number(r.capture_deadline),
  refundDeadline: Number(r.refund_deadline),
  authorizeTransaction: r.authorize_tx,
  captureTransaction: r.capture_tx,
  tag: r.tag,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  version: Number(r.version),
})

/** The columns a record or a partial change of it sets. */
function toColumns(c: Partial<HoldRecord>): Partial<Row> {
  const out: Partial<Row> = {}
  const set = <K extends keyof Row>(k: K, v: Row[K] | undefined) => void (v !== undefined && (out[k] = v))
  set('id', c.id?.toLowerCase())
  set('network', c.network)
  set('requirements', c.requirements && JSON.stringify(c.requirements))
  set('payment_info', c.paymentInfo && JSON.stringify(c.paymentInfo))
  set('salt_nonce', c.saltNonce)
  set('payer', c.payer)
  set('pay_to', c.payTo)
  set('max_amount', c.maxAmount)
  set('status', c.status)
  set('captured', c.captured)
  set('voided', c.voided)
  set('refunded', c.refunded)
  set('capture_deadline', c.captureDeadline)
  set('refund_deadline', c.refundDeadline)
  set('authorize_tx', c.authorizeTransaction)
  set('capture_tx', c.captureTransaction)
  if (c.tag !== undefined) out.tag = c.tag
  set('created_at', c.createdAt)
  set('updated_at', c.updatedAt)
  set('version', c.version)
  return out
}

/**
 * The seller gate's HoldStore in the daemon's store (SQLite or PostgreSQL): every change is one
 * UPDATE guarded by the version it read, so two replicas never both capture or refund from one
 * snapshot of a hold.
 */
export function sellerHoldStore(
  store: Store,
): HoldStore & { byTag(tag: string, id: Hex): Promise<HoldRecord | undefined> } {
  const { db } = store
  const t = 'x402_seller_holds' as const
  return {
    async insert(r) {
      const res = await db
        .insertInto(t)
        .values(toColumns(r) as Row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst()
      return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0
    },
    async get(id) {
      const r = await db.selectFrom(t).selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst()
      return r && toRecord(r)
    },
    async byTag(tag, id) {
      const r = await db
        .selectFrom(t)
        .selectAll()
        .where('id', '=', id.toLowerCase())
        .where('tag', '=', tag)
        .executeTakeFirst()
      return r && toRecord(r)
    },
    async update(id, version, patch) {
      const res = await db
        .updateTable(t)
        .set({ ...toColumns(patch), version: version + 1 })
        .where('id', '=', id.toLowerCase())
        .where('version', '=', version)
        .executeTakeFirst()
      return Number(res.numUpdatedRows) > 0
    },
    list: async (statuses) =>
      (await db.selectFrom(t).selectAll().where('status', 'in', statuses).orderBy('created_at').execute()).map(
        toRecord,
      ),
  }
}
