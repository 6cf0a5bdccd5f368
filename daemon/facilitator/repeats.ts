import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import type { FacilitatorDeps } from './deps.js'
import type { Failure } from './method.js'
import type { PendingSettlements } from './pending.js'
import { isEvmRow } from './reconcile.js'
import { networkByName } from './resolve.js'
import type { SettlementRow, SettlementStore } from './settlements.js'

/**
 * How long a concurrent duplicate waits for the first settle's outcome, to name its transaction (at least the receipt
 * wait).
 */
const DUPLICATE_WAIT_MS = 30_000

export type RepeatedSettlesDeps = {
  s: FacilitatorDeps
  store: SettlementStore
  pending: PendingSettlements
  receiptTimeoutMs: number
  failed(network: string, f: Failure, tx?: string): SettleResponse
}

/**
 * What a settle of a payment that already has a settlement attempt answers: a second settle of a
 * live authorization (`duplicate`), an earlier attempt under the same payment id (`answerOf`), and
 * the `settlement_pending` answer both give while the chain has not decided.
 */
export function repeatedSettles({ s, store, pending, receiptTimeoutMs, failed }: RepeatedSettlesDeps) {
  const duplicateWaitMs = Math.max(DUPLICATE_WAIT_MS, receiptTimeoutMs + 5_000)

  /**
   * A second settle of a live authorization. One still being settled is waited for (bounded), so
   * the answer names the first settlement's transaction. One broadcast but unmined (answered
   * `settlement_pending`) is the seller's retry: its receipt is awaited as the first settle awaited
   * it, and once settled exactly one such retry is told `success` (the first answer never was). A
   * settled one is checked on chain before answering: `duplicate_settlement` is never given for a
   * transaction the chain does not have.
   */
  const duplicate = async (network: string, key: string, first: SettlementRow): Promise<SettleResponse | undefined> => {
    let e: SettlementRow | undefined = first
    while (e?.state === 'pending' && !e.tx && Date.now() - Number(e.updated_at) < duplicateWaitMs) {
      await new Promise((r) => setTimeout(r, 25))
      e = await store.live(key)
    }
    if (e?.state === 'pending' && e.tx) e = await pending.settle(e, receiptTimeoutMs)
    // Its settle failed meanwhile: the authorization is free again, this request may take it.
    if (!e || e.state === 'failed') return undefined
    if (e.state === 'pending') {
      if (e.tx) return pendingAnswer(network, e)
      return failed(network, {
        reason: reasons.duplicateSettlement,
        message: 'this authorization is being settled by another request',
        payer: e.payer ?? '',
      })
    }
    const lost = await lostByChain(network, e)
    if (lost) return lost
    if (!e.reported && (await store.report(e.id)))
      return { success: true, payer: e.payer ?? '', transaction: e.tx ?? '', network }
    return failed(
      network,
      {
        reason: reasons.duplicateSettlement,
        message: `this authorization was settled in ${e.tx}`,
        payer: e.payer ?? '',
      },
      e.tx ?? '',
    )
  }
  const pendingAnswer = (network: string, e: SettlementRow) =>
    failed(
      network,
      {
        reason: reasons.settlementPending,
        message:
          `transaction ${e.tx} was broadcast and is not mined yet; it is ` +
          `finished in the background: GET /status/tx/${e.tx} tells when it is`,
        payer: e.payer ?? '',
      },
      e.tx ?? '',
    )
  /**
   * A settled row whose transaction the chain does not have now (a reorg, a restarted node): neither paid nor unpaid
   * yet.
   */
  const lostByChain = async (network: string, e: SettlementRow): Promise<SettleResponse | undefined> => {
    if (!e.tx || !isEvmRow(e) || (await onChain(network, e.tx))) return undefined
    return failed(
      network,
      {
        reason: reasons.settlementPending,
        message:
          `this authorization was recorded as settled in ${e.tx}, which the chain does not have ` +
          `now; reconciliation broadcasts it again or releases the authorization: retry shortly`,
        payer: e.payer ?? '',
      },
      e.tx,
    )
  }
  const onChain = async (network: string, tx: string) => {
    const spec = networkByName(network)
    const chain = spec && s.evm[spec.key]
    if (!chain) return true
    return (await chain.client.request({ method: 'eth_getTransactionReceipt', params: [tx as `0x${string}`] })) !== null
  }

  /**
   * What an earlier settlement attempt of a payment id answers now; undefined when it failed for a reason worth a new
   * attempt.
   */
  const answerOf = async (e: SettlementRow, network: string): Promise<SettleResponse | undefined> => {
    let row: SettlementRow | undefined = e
    while (row?.state === 'pending' && !row.tx && Date.now() - Number(row.updated_at) < duplicateWaitMs) {
      await new Promise((r) => setTimeout(r, 25))
      row = await store.byId(e.id)
    }
    if (!row) return undefined
    if (row.state === 'pending') {
      if (row.tx) row = await pending.settle(row, receiptTimeoutMs)
      if (row.state === 'pending')
        return row.tx
          ? pendingAnswer(network, row)
          : failed(network, {
              reason: reasons.duplicateSettlement,
              message: 'this payment is being settled by another request',
              payer: row.payer ?? '',
            })
    }
    if (row.state === 'settled') {
      const lost = await lostByChain(network, row)
      if (lost) return lost
      // Told now: a retry of the same authorization without the id is not told success a second time.
      if (!row.reported) await store.report(row.id)
      return { success: true, payer: row.payer ?? '', transaction: row.tx ?? '', network }
    }
    if (row.reason === reasons.unexpectedSettleError) return undefined
    return failed(
      network,
      { reason: row.reason ?? reasons.unexpectedSettleError, message: row.message ?? '', payer: row.payer ?? '' },
      row.tx ?? '',
    )
  }
  return { duplicate, answerOf, pendingAnswer }
}
