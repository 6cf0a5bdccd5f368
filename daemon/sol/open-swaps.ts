import type { SignatureStatus } from '@solana/web3.js'
import { rpc } from './accounts.js'
import type { SolDeps } from './deps.js'

// getSignatureStatuses takes at most 256 signatures per call.
const BATCH = 256
// Beyond this many unsettled transactions the oldest are settled first, over later calls.
const MAX_PER_PASS = 4 * BATCH

/**
 * Settles the co-signed transactions whose fate is now known: landed (confirmed or failed) or
 * expired unsubmitted. Requests arriving while a pass runs share it (each pass costs RPC calls);
 * nothing is kept once it ends. A transaction that lands after the pass read its status stays
 * reserved until a later pass: the solver's inventory is under-stated for a moment, never
 * over-stated (see `mark` in swap-store.ts for reads that overlap a pass).
 */
export function settleOpenSwaps(d: SolDeps): Promise<void> {
  return d.passes.share(() => settlePass(d))
}

/** Keeps the set of open swaps small without making the request that triggers it wait. */
export function settleInBackground(d: SolDeps, now = Date.now()): void {
  if (!d.passes.backgroundDue(now)) return
  // A failed pass is simply retried by a later one.
  settleOpenSwaps(d).catch(() => {})
}

async function settlePass(d: SolDeps): Promise<void> {
  const open = await d.store.open(d.chain.key, MAX_PER_PASS)
  if (open.length === 0) return
  // Height first: a transaction missing from the statuses read after a height beyond its
  // lastValidBlockHeight can never land any more.
  const height = await rpc(() => d.chain.reads.blockHeight('confirmed'))
  const batches: Promise<(SignatureStatus | null)[]>[] = []
  for (let i = 0; i < open.length; i += BATCH) {
    const sigs = open.slice(i, i + BATCH).map((o) => o.signature)
    batches.push(rpc(() => d.chain.reads.signatureStatuses(sigs, { searchTransactionHistory: true })))
  }
  const statuses = (await Promise.all(batches)).flat()
  for (const [i, o] of open.entries()) {
    const verdict = settledStatus(statuses[i] ?? null, height, o.lastValidBlockHeight)
    if (verdict) await d.store.settle(o.signature, verdict)
  }
}

export type Settled = { status: 'confirmed' | 'failed' | 'expired'; slot?: number; err?: unknown }

/**
 * A transaction's fate from its status and the chain's block height, or undefined while open.
 * Only a confirmed or finalized landing counts: a processed one may still be dropped with its fork.
 */
export function settledStatus(
  status: SignatureStatus | null,
  height: number,
  lastValidBlockHeight: number,
): Settled | undefined {
  if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) {
    return status.err
      ? { status: 'failed', slot: status.slot, err: status.err }
      : { status: 'confirmed', slot: status.slot }
  }
  if (!status && height > lastValidBlockHeight) return { status: 'expired' }
  return undefined
}
