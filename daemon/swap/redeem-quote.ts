import type { Address } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import type { EvmToken } from '../chains/evm/chain.js'
import type { SwapDeps } from './deps.js'
import { solverInventory, ui } from './inventory.js'
import { checkRedeemCeiling, usdToUnits } from './limits.js'
import { pairKey } from './pairs.js'
import { largestWithin, minOutFloor, type Pool, type Priced, price } from './redeem-math.js'

const pairAbi = [
  {
    type: 'function',
    name: 'getReserves',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint112' }, { type: 'uint112' }, { type: 'uint32' }],
  },
] as const

export type RedeemPlan = {
  input: EvmToken
  usdc: EvmToken
  pair: Address
  amountIn: bigint
  pool: Pool
  priced: Priced
  /** The floor this quote offers as minOutputAmount. */
  minOut: bigint
  inventory: { balance: bigint; routerAllowance: bigint }
}

/** For the quote: live pool depth and solver inventory, each read shared by concurrent requests (s.reads). */
export async function planRedeem(s: SwapDeps, input: EvmToken, usdc: EvmToken, amountIn: bigint): Promise<RedeemPlan> {
  const chain = s.base
  const pair = chain.contracts[pairKey(input.symbol)]!
  const [reserves, inv] = await Promise.all([
    s.reads.get(`reserves:${pair}`, () =>
      chain.client.readContract({ address: pair, abi: pairAbi, functionName: 'getReserves' }),
    ),
    solverInventory(s),
  ])
  return priceRedeem(s, { input, usdc, amountIn, reserves: [reserves[0], reserves[1]], inventory: inv[usdc.symbol]! })
}

/** Prices a redemption against given reserves and inventory (the swap route reads both fresh, in its one call). */
export function priceRedeem(
  s: SwapDeps,
  x: {
    input: EvmToken
    usdc: EvmToken
    amountIn: bigint
    reserves: readonly [bigint, bigint]
    inventory: RedeemPlan['inventory']
  },
): RedeemPlan {
  const { input, usdc, amountIn } = x
  // A V2 pair orders its tokens by address; no need to ask it.
  const inputIsToken0 = BigInt(input.address) < BigInt(usdc.address)
  const [r0, r1] = x.reserves
  const pool: Pool = {
    reserveIn: inputIsToken0 ? r0 : r1,
    reserveOut: inputIsToken0 ? r1 : r0,
    inDecimals: input.decimals,
    outDecimals: usdc.decimals,
  }
  const priced = price(pool, amountIn)
  if (priced.parOut === 0n) {
    throw new BaseError(
      'BAD_REQUEST',
      `the amount is below one unit of ${usdc.symbol} (${fromBaseUnits(1n, usdc.decimals)}): redeem more`,
    )
  }
  const minOut = minOutFloor(priced.out, priced.slippageBps, s.limits.slippageBpsMax)
  return {
    input,
    usdc,
    pair: s.base.contracts[pairKey(input.symbol)]!,
    amountIn,
    pool,
    priced,
    minOut,
    inventory: x.inventory,
  }
}

/**
 * Inventory when the solver can pay `minOut` from its own USDC and the size is within `maxUsd` (the
 * largest single-shot inventory fill), else a live swap on the pool in the same settlement. Either
 * way the user gets at least the signed floor; inventory pays exactly the floor.
 */
export function deliveryFor(s: SwapDeps, plan: RedeemPlan, minOut: bigint): 'inventory' | 'pool' {
  const withinShot = plan.amountIn <= usdToUnits(s.limits.redeemMaxUsd, plan.input.decimals)
  const { balance, routerAllowance } = plan.inventory
  return withinShot && balance >= minOut && routerAllowance >= minOut ? 'inventory' : 'pool'
}

/** The two refusals docs/swap-api.md "Redemptions" gives a quote: above the ceiling, or beyond the slippage budget. */
export function checkRedeemable(s: SwapDeps, plan: RedeemPlan, field: string): void {
  const { redeemHardMaxUsd, slippageBpsMax } = s.limits
  checkRedeemCeiling(plan.amountIn, plan.input.decimals, plan.input.symbol, redeemHardMaxUsd, field)
  if (plan.priced.slippageBps <= slippageBpsMax) return
  // Suggested at USDC's precision: a size a person can type, still within the budget.
  const unit = 10n ** BigInt(Math.max(0, plan.input.decimals - plan.usdc.decimals))
  let fits = (largestWithin(plan.pool, slippageBpsMax, plan.amountIn) / unit) * unit
  while (fits > 0n && price(plan.pool, fits).slippageBps > slippageBpsMax) fits -= unit
  const what =
    `redeeming ${fromBaseUnits(plan.amountIn, plan.input.decimals)} ${plan.input.symbol} ` +
    `would slip ${plan.priced.slippageBps} bps, above slippageBpsMax = ${slippageBpsMax}`
  if (fits === 0n)
    throw new BaseError(
      'SLIPPAGE_TOO_HIGH',
      `${what}, and the pool is that far below par at any size: retry later, once it has recovered`,
    )
  throw new BaseError(
    'SLIPPAGE_TOO_HIGH',
    `${what}: reduce the size to at most ${fromBaseUnits(fits, plan.input.decimals)} and re-quote`,
  )
}

/** GET /api/base/redeem/quote (docs/swap-api.md "Redemptions"). */
export function quoteBody(s: SwapDeps, plan: RedeemPlan) {
  const { input, usdc, priced } = plan
  return {
    in: input.symbol,
    out: usdc.symbol,
    chain: s.base.key,
    inAmount: ui(plan.amountIn, input.decimals),
    usdcOut: ui(priced.out, usdc.decimals),
    usdcOutBase: priced.out.toString(),
    slippageBps: priced.slippageBps,
    minOutBase: plan.minOut.toString(),
    slippageBpsMax: s.limits.slippageBpsMax,
    usdcDec: usdc.decimals,
    usdc: usdc.address,
    deliverFrom: deliveryFor(s, plan, plan.minOut),
    maxUsd: s.limits.redeemMaxUsd,
    hardMaxUsd: s.limits.redeemHardMaxUsd,
    solverUsdcInventory: ui(plan.inventory.balance, usdc.decimals),
    // USDC per input token at this quote's expected output; 1 is par. Display only, like every number field.
    rate: Number((ui(priced.out, usdc.decimals) / ui(plan.amountIn, input.decimals)).toPrecision(12)),
    inputToken: input.address,
  }
}
