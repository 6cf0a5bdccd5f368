import type { Selectable } from 'kysely'
import { encodeCursor, PAYMENTS_PAGE } from '../../../src/sdk/platform/history.js'
import { RECEIPT_DOMAIN } from '../../../src/sdk/platform/receipt-typed-data.js'
import type { ReceiptsPage, SignedReceipt } from '../../../src/sdk/platform/receipts.js'
import type { Store } from '../../store/store.js'
import type { PlatformReceiptsTable } from '../../store/tables/receipts.js'

type Row = Selectable<PlatformReceiptsTable>
export type ReceiptsQueryParsed = {
  since?: number
  until?: number
  limit?: number
  cursor?: { createdAt: number; id: string }
}

/** Signed receipts by payment (migration 650), shared by every replica through the store. */
export type ReceiptStore = {
  /**
   * Keeps a receipt; a payment already holding one keeps the first (a receipt is never re-signed). Returns the stored
   * one.
   */
  put(agentId: string, r: SignedReceipt, createdAt: number): Promise<SignedReceipt>
  get(agentId: string, paymentId: string): Promise<SignedReceipt | undefined>
  /** Newest first, keyset-paged on (created_at, payment_id) like the payments. */
  page(agentId: string, q: ReceiptsQueryParsed): Promise<ReceiptsPage>
}

export function receiptStore(store: Store): ReceiptStore {
  const { db } = store
  const get = async (agentId: string, paymentId: string) => {
    const row = await db
      .selectFrom('platform_receipts')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .where('agent_id', '=', agentId)
      .executeTakeFirst()
    return row ? receiptOf(row) : undefined
  }
  return {
    async put(agentId, r, createdAt) {
      await db
        .insertInto('platform_receipts')
        .values({
          payment_id: r.message.paymentId,
          agent_id: agentId,
          message: JSON.stringify(r.message),
          signature: r.signature,
          signer: r.signer,
          seller_receipt: r.sellerReceipt ? JSON.stringify(r.sellerReceipt) : null,
          created_at: createdAt,
        })
        .onConflict((oc) => oc.column('payment_id').doNothing())
        .execute()
      return (await get(agentId, r.message.paymentId))!
    },
    get,
    async page(agentId, q) {
      const limit = q.limit ?? PAYMENTS_PAGE.default
      let sel = db.selectFrom('platform_receipts').selectAll().where('agent_id', '=', agentId)
      if (q.since !== undefined) sel = sel.where('created_at', '>=', q.since)
      if (q.until !== undefined) sel = sel.where('created_at', '<', q.until)
      if (q.cursor) {
        const { createdAt, id } = q.cursor
        sel = sel.where((eb) =>
          eb.or([
            eb('created_at', '<', createdAt),
            eb.and([eb('created_at', '=', createdAt), eb('payment_id', '<', id)]),
          ]),
        )
      }
      const rows = await sel
        .orderBy('created_at', 'desc')
        .orderBy('payment_id', 'desc')
        .limit(limit + 1)
        .execute()
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      return {
        receipts: page.map(receiptOf),
        nextCursor: rows.length > limit && last ? encodeCursor(Number(last.created_at), last.payment_id) : null,
      }
    },
  }
}

function receiptOf(r: Row): SignedReceipt {
  return {
    domain: { ...RECEIPT_DOMAIN },
    primaryType: 'Receipt',
    message: JSON.parse(r.message) as SignedReceipt['message'],
    signature: r.signature,
    signer: r.signer,
    sellerReceipt: r.seller_receipt ? (JSON.parse(r.seller_receipt) as Record<string, unknown>) : null,
  }
}
