import { TOKEN_A } from '../../src/networks/registry.js'
import { ui } from '../swap/inventory.js'
import { chainTokens } from './accounts.js'
import type { SolDeps } from './deps.js'
import { available } from './inventory.js'
import { resolveNet } from './net.js'
import { settleOpenSwaps } from './open-swaps.js'
import { readWallets } from './wallets.js'

/**
 * GET /api/sol/info: the canonical TOKEN_A mint of the network (`mint`, with `symbol` and `dec`),
 * every mint with the solver's live inventory (`available` = what it can still promise), the
 * solver (also the fee payer of every swap), and the par cap `max` as on /api/base/info.
 */
export async function solInfo(d: SolDeps, net?: string) {
  const network = resolveNet(d.chain.spec, net)
  await settleOpenSwaps(d)
  const tokens = await chainTokens(d.chain)
  const list = Object.values(tokens)
  const mark = await d.store.mark()
  const [solver] = await readWallets(d.chain.reads, [d.solver.publicKey], list)
  const mints: Record<string, { mint: string; dec: number; program: string; inventory: number; available: number }> = {}
  for (const t of list) {
    const h = solver!.tokens[t.symbol]!
    mints[t.symbol] = {
      mint: t.mint.toBase58(),
      dec: t.decimals,
      program: t.program.toBase58(),
      inventory: ui(h.balance, t.decimals),
      available: ui(await available(d, h, mark), t.decimals),
    }
  }
  const tokenA = tokens[TOKEN_A]!
  return {
    network,
    caip2: d.chain.spec.caip2,
    symbol: tokenA.symbol,
    mint: tokenA.mint.toBase58(),
    dec: tokenA.decimals,
    mints,
    solver: d.solver.publicKey.toBase58(),
    feePayer: d.solver.publicKey.toBase58(),
    max: d.limits.maxUsd,
    rate: 1,
  }
}
