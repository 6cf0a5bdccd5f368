import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Failure } from './method.js'
import type { PaymentIdentity } from './payment-identity.js'
import type { PaymentIdRow, PaymentIdStore } from './payment-ids.js'
import type { SettlementRow, SettlementStore } from './settlements.js'

export type IdempotentDeps = {
  ids: PaymentIdStore
  store: SettlementStore
  /**
   * What a settlement attempt answers now: success, pending (after a bounded wait) or its failure; undefined to settle
   * anew.
   */
  answerOf(row: SettlementRow, network: string): Promise<SettleResponse | undefined>
  failed(network: string, f: Failure, tx?: string): SettleResponse
}

/** Failures that say nothing final about the payment: they are not remembered, so a retry tries again. */
const transient = new Set<string>([
  reasons.unexpectedVerifyError,
  reasons.unexpectedSettleError,
  reasons.settlementPending,
  reasons.duplicateSettlement,
])

/**
 * The payment-identifier extension on the facilitator: a client-chosen id, scoped to the seller
 * (`payTo`), is bound to the first payload that uses it (x402_payment_ids, unique per scope). The
 * same id with the same payload is answered what the first call was (verify: its first decided
 * answer; settle: its settlement as it stands now, never a second transfer); the same id with
 * another payload is refused with `payment_identifier_mismatch`.
 */
export function idempotent(d: IdempotentDeps) {
  const bind = async (who: PaymentIdentity, network: string): Promise<PaymentIdRow | Failure> => {
    const row = await d.ids.bind({ scope: who.scope, paymentId: who.paymentId, fingerprint: who.fingerprint, network })
    if (row.fingerprint === who.fingerprint) return row
    return {
      reason: reasons.paymentIdentifierMismatch,
      message:
        `payment id '${who.paymentId}' was already used for another ` +
        `payment to this seller (${who.scope}); a new payment needs a new id`,
    }
  }
  const settlementOf = async (row: PaymentIdRow) =>
    row.settlement_id === null ? undefined : d.store.byId(Number(row.settlement_id))

  return {
    async verify(who: PaymentIdentity, network: string, run: () => Promise<VerifyResponse>): Promise<VerifyResponse> {
      const row = await bind(who, network)
      if ('reason' in row) return { isValid: false, invalidReason: row.reason, invalidMessage: row.message, payer: '' }
      // Settled or being settled: the payment is good, whatever a fresh check of its spent authorization says.
      const settlement = await settlementOf(row)
      if (settlement && (settlement.state === 'settled' || settlement.state === 'pending') && !row.settle_answer)
        return { isValid: true, payer: settlement.payer ?? '' }
      if (row.verify_answer) return JSON.parse(row.verify_answer) as VerifyResponse
      const answer = await run()
      if (answer.isValid || !transient.has(String(answer.invalidReason))) await d.ids.saveVerify(row.id, answer)
      return answer
    },

    async settle(
      who: PaymentIdentity,
      network: string,
      run: (onClaim: (settlementId: number) => Promise<void>) => Promise<SettleResponse>,
    ): Promise<SettleResponse> {
      const row = await bind(who, network)
      if ('reason' in row) return d.failed(network, row)
      if (row.settle_answer) return JSON.parse(row.settle_answer) as SettleResponse
      const earlier = await settlementOf(row)
      const known = earlier && (await d.answerOf(earlier, network))
      if (known) return known
      const answer = await run((settlementId) => d.ids.link(row.id, settlementId))
      if (answer.success) return answer
      if (answer.errorReason === reasons.duplicateSettlement) {
        // A concurrent settle of this same id and payload won the claim: answer what it settled.
        const won = await settlementOf((await d.ids.find(who.paymentId, who.scope))[0]!)
        const again = won && (await d.answerOf(won, network))
        if (again) return again
      }
      if (!transient.has(String(answer.errorReason))) await d.ids.saveSettle(row.id, answer)
      return answer
    },
  }
}
