import { rpc } from './accounts.js'
import type { SolDeps } from './deps.js'
import { settledStatus } from './open-swaps.js'
import type { SolSwapRecord } from './swap-store.js'

export type SolConfirmResult =
  | { sig: string; status: 'included'; success: true; slot: number; confirmationStatus: string; swap?: SwapSummary }
  | {
      sig: string
      status: 'failed'
      success: false
      slot: number
      confirmationStatus: string
      reason: string
      swap?: SwapSummary
    }
  | { sig: string; status: 'pending'; lastValidBlockHeight?: number; swap?: SwapSummary }
  | { sig: string; status: 'expired'; reason: string; swap: SwapSummary }
  | { sig: string; status: 'unknown'; reason: string }

export type SwapSummary = ReturnType<typeof swapSummary>

/**
 * GET /api/sol/confirm: where a transaction stands, with Base's vocabulary (pending, included,
 * failed, unknown) plus 'expired' for a swap of ours whose blockhash passed before it landed: it
 * never will, and can be rebuilt. A landing of one of our swaps is recorded for /api/sol/recent.
 */
export async function confirmSol(d: SolDeps, sig: string): Promise<SolConfirmResult> {
  const { connection } = d.chain
  const record = await d.store.get(sig)
  // Height before status: missing from statuses read after a height beyond lastValidBlockHeight = never lands.
  const height = await rpc(() => connection.getBlockHeight('confirmed'))
  const {
    value: [status],
  } = await rpc(() => connection.getSignatureStatuses([sig], { searchTransactionHistory: true }))
  const swap = record && swapSummary(record)
  if (status) {
    const settled = record && settledStatus(status, height, record.lastValidBlockHeight)
    if (settled) await d.store.settle(sig, settled)
    const commitment = status.confirmationStatus ?? 'processed'
    if (status.err)
      return {
        sig,
        status: 'failed',
        success: false,
        slot: status.slot,
        confirmationStatus: commitment,
        reason: JSON.stringify(status.err),
        swap,
      }
    if (commitment === 'processed') return { sig, status: 'pending', swap }
    return { sig, status: 'included', success: true, slot: status.slot, confirmationStatus: commitment, swap }
  }
  if (!record)
    return {
      sig,
      status: 'unknown',
      reason: 'the cluster does not know this transaction and this service did not build it',
    }
  if (height > record.lastValidBlockHeight) {
    await d.store.settle(sig, { status: 'expired' })
    return {
      sig,
      status: 'expired',
      reason:
        `its blockhash expired at block height ${record.lastValidBlockHeight} ` +
        `before it landed; request a new transaction`,
      swap: swapSummary(record),
    }
  }
  return { sig, status: 'pending', lastValidBlockHeight: record.lastValidBlockHeight, swap }
}

/** What confirm says about a swap this service built; amounts in base units. */
export function swapSummary(r: SolSwapRecord) {
  return {
    kind: r.kind,
    user: r.user,
    in: r.inSymbol,
    out: r.outSymbol,
    inAmountBase: r.inAmount.toString(),
    outAmountBase: r.outAmount.toString(),
  }
}
