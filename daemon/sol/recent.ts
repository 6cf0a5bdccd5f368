import { ui } from '../swap/inventory.js'
import type { SolDeps } from './deps.js'
import { settleOpenSwaps } from './open-swaps.js'

/**
 * GET /api/sol/recent: the service's latest Solana swaps, newest first. A swap appears when the
 * solver co-signs it ('pending') and moves to 'confirmed' or 'failed' once it lands; one whose
 * blockhash expired unsubmitted never happened and is left out.
 */
export async function recentSolSwaps(d: SolDeps, limit: number) {
  await settleOpenSwaps(d)
  const dec = (symbol: string) => d.chain.mints[symbol]?.decimals ?? 0
  const swaps = (await d.store.recent(d.chain.key, limit)).map((r) => ({
    signature: r.signature,
    status: r.status === 'built' ? 'pending' : r.status,
    kind: r.kind,
    user: r.user,
    in: r.inSymbol,
    out: r.outSymbol,
    inAmount: ui(r.inAmount, dec(r.inSymbol)),
    inAmountBase: r.inAmount.toString(),
    outAmount: ui(r.outAmount, dec(r.outSymbol)),
    outAmountBase: r.outAmount.toString(),
    slot: r.slot,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }))
  return { network: d.chain.key, swaps }
}
