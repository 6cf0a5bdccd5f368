import { BaseError } from '../../src/errors/index.js'
import type { PaymentStatus, TransactionStatus } from '../../src/sdk/x402/status.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import { scopeOf } from './payment-identity.js'
import type { PaymentIdRow, PaymentIdStore } from './payment-ids.js'
import type { SettlementRow, SettlementStore } from './settlements.js'

const stateOf = { pending: 'pending', settled: 'completed', failed: 'failed' } as const

/**
 * Where payments stand, read from the settlement ledger (x402_settlements) and the payment ids
 * bound to it. A payment id is found in its seller's scope; a transaction names every payment
 * its batch settled.
 */
export function paymentStatus(d: { ids: PaymentIdStore; store: SettlementStore }) {
  const fromRow = (row: SettlementRow, paymentId: string | null): PaymentStatus => ({
    paymentId,
    status: stateOf[row.state],
    network: row.network,
    transaction: row.tx || null,
    payer: row.payer || null,
    payTo: row.pay_to,
    amount: row.amount,
    reason: row.reason,
    message: row.message,
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  })
  /** An id whose settle was refused before a settlement attempt was recorded. */
  const fromAnswer = (id: PaymentIdRow, a: SettleResponse): PaymentStatus => ({
    paymentId: id.payment_id,
    status: 'failed',
    network: id.network,
    transaction: a.transaction || null,
    payer: a.payer || null,
    payTo: id.scope,
    amount: null,
    reason: a.errorReason ?? null,
    message: a.errorMessage ?? null,
    updatedAt: new Date(Number(id.updated_at)).toISOString(),
  })

  return {
    /**
     * The id's payment; NOT_FOUND when no settle was asked for it, BAD_REQUEST when two sellers share the id and
     * `payTo` is missing.
     */
    async byPaymentId(paymentId: string, payTo?: string): Promise<PaymentStatus> {
      const rows = await d.ids.find(paymentId, payTo === undefined ? undefined : scopeOf(payTo))
      if (rows.length > 1)
        throw new BaseError(
          'BAD_REQUEST',
          `payment id '${paymentId}' is used by ${rows.length} sellers: add ?payTo=<the seller's payTo>`,
        )
      const id = rows[0]
      const settlement = id?.settlement_id != null ? await d.store.byId(Number(id.settlement_id)) : undefined
      // A remembered refusal is the id's answer even when a settlement attempt was recorded first.
      if (id?.settle_answer) return fromAnswer(id, JSON.parse(id.settle_answer) as SettleResponse)
      if (!id || !settlement) {
        throw new BaseError(
          'NOT_FOUND',
          `no settlement for payment id '${paymentId}'${payTo ? ` to ${payTo}` : ''} ` +
            `(a payment only verified has none)`,
        )
      }
      return fromRow(settlement, id.payment_id)
    },

    async byTransaction(transaction: string): Promise<TransactionStatus> {
      const rows = await d.store.byTx(transaction)
      if (rows.length === 0) throw new BaseError('NOT_FOUND', `no settlement names transaction ${transaction}`)
      const ids = new Map(
        (await d.ids.bySettlements(rows.map((r) => r.id))).map((i) => [Number(i.settlement_id), i.payment_id]),
      )
      return { transaction, payments: rows.map((r) => fromRow(r, ids.get(Number(r.id)) ?? null)) }
    },
  }
}
