import { BaseError } from '../../src/errors/index.js'
import { USDC } from '../../src/networks/registry.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import { ui } from '../swap/inventory.js'
import { chainTokens } from './accounts.js'
import type { SolDeps } from './deps.js'
import { available } from './inventory.js'
import { resolveNet } from './net.js'
import { settleOpenSwaps } from './open-swaps.js'
import { checkFlow, resolveSolPair } from './pairs.js'
import {
  checkSolRedeemCeiling,
  checkSolSlippage,
  planSolRedeem,
  type SolRedeemPlan,
  solRedeemMaxUsd,
} from './redeem-price.js'
import { readWallets } from './wallets.js'

export type SolQuoteRequest = { net?: string; in: string; amount: string }

/**
 * GET /api/sol/redeem/quote: the Base quote's fields (docs/swap-api.md "Redemptions") where they apply, priced from the
 * solver's live
 * inventory (see redeem-price.ts). `deliverFrom` is always 'inventory': Solana has no pool route.
 */
export async function solRedeemQuote(d: SolDeps, q: SolQuoteRequest) {
  const network = resolveNet(d.chain.spec, q.net)
  const pair = resolveSolPair(d.chain, q.in, USDC)
  if (pair.kind !== 'redeem')
    throw new BaseError('UNSUPPORTED_PAIR', `a redemption's input is a partner stable; ${pair.input.symbol} is not`)
  checkFlow(pair, d.flowEnabled)
  const amountIn = toBaseUnits(q.amount, pair.input.decimals, 'amount')
  checkSolRedeemCeiling(amountIn, pair.input.decimals, pair.input.symbol, d.limits, 'amount')
  const { plan, usdcBalance } = await priceRedeem(d, pair.input.symbol, amountIn)
  checkSolSlippage(plan, pair.input.symbol, pair.input.decimals, d.limits.slippageBpsMax)
  const { input, output: usdc } = pair
  const { priced } = plan
  return {
    in: input.symbol,
    out: usdc.symbol,
    chain: network,
    inAmount: ui(amountIn, input.decimals),
    usdcOut: ui(priced.out, usdc.decimals),
    usdcOutBase: priced.out.toString(),
    slippageBps: priced.slippageBps,
    minOutBase: plan.minOut.toString(),
    slippageBpsMax: d.limits.slippageBpsMax,
    usdcDec: usdc.decimals,
    usdc: usdc.mint.toBase58(),
    deliverFrom: 'inventory',
    maxUsd: solRedeemMaxUsd(d.limits),
    hardMaxUsd: solRedeemMaxUsd(d.limits),
    solverUsdcInventory: ui(usdcBalance, usdc.decimals),
    rate: (Number(priced.out) / Number(amountIn)) * 10 ** (input.decimals - usdc.decimals),
    inputToken: input.mint.toBase58(),
  }
}

/** The live price of redeeming `amountIn` of `symbol`, from the solver's inventory right now. */
async function priceRedeem(
  d: SolDeps,
  symbol: string,
  amountIn: bigint,
): Promise<{ plan: SolRedeemPlan; usdcBalance: bigint }> {
  await settleOpenSwaps(d)
  const tokens = await chainTokens(d.chain)
  const mark = await d.store.mark()
  const [solver] = await readWallets(d.chain.reads, [d.solver.publicKey], [tokens[symbol]!, tokens[USDC]!])
  const input = solver!.tokens[symbol]!
  const usdc = solver!.tokens[USDC]!
  const plan = planSolRedeem({
    amountIn,
    inDecimals: input.token.decimals,
    outDecimals: usdc.token.decimals,
    reserveIn: input.balance,
    reserveOut: await available(d, usdc, mark),
    slippageBpsMax: d.limits.slippageBpsMax,
  })
  return { plan, usdcBalance: usdc.balance }
}
