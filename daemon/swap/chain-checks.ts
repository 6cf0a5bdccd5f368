import { type Address, getAddress } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import type { RfqOrder } from '../../src/sdk/swap/order.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import type { EvmToken } from '../chains/evm/chain.js'
import type { SwapPair } from './pairs.js'
import type { SwapState } from './user-state.js'

/** docs/swap-api.md "Routes", check 3: both failures mean the order must be signed again. */
export function checkDeadlineAndNonce(order: RfqOrder, state: SwapState): void {
  const now = BigInt(Math.floor(Date.now() / 1000))
  const chainNow = state.chainTime > now ? state.chainTime : now
  if (order.deadline < chainNow) {
    throw new BaseError(
      'DEADLINE_EXPIRED',
      `order.deadline ${order.deadline} has passed (chain time ` +
        `${chainNow}): re-sign the order and the permit with a later deadline`,
    )
  }
  if (order.nonce !== state.routerNonce) {
    const why =
      order.nonce < state.routerNonce
        ? 'an order with this nonce has already settled (a replay)'
        : 'it is ahead of the router'
    throw new BaseError(
      'NONCE_MISMATCH',
      `order.nonce ${order.nonce} is not the router's nonces(user) ` +
        `= ${state.routerNonce}; ${why}: re-read the nonce and re-sign`,
    )
  }
}

/** docs/swap-api.md "Routes", check 4, for fills paid from the solver's inventory. */
export function checkInventory(output: EvmToken, amount: bigint, inv: SwapState['inventory']): void {
  const need = fromBaseUnits(amount, output.decimals)
  if (inv.balance < amount) {
    throw new BaseError(
      'INVENTORY_SHORT',
      `the solver holds ${fromBaseUnits(inv.balance, output.decimals)} ` +
        `${output.symbol}, less than the ${need} this swap pays: reduce the ` +
        `amount (see out.${output.symbol}.inventory of /api/base/info) or retry later`,
    )
  }
  if (inv.routerAllowance < amount) {
    throw new BaseError(
      'INVENTORY_SHORT',
      `the solver's router allowance of ${output.symbol} is ` +
        `${fromBaseUnits(inv.routerAllowance, output.decimals)}, less ` +
        `than the ${need} this swap pays: reduce the amount or retry later`,
    )
  }
}

/** docs/swap-api.md "Routes", check 5. */
export function checkBalance(input: EvmToken, user: Address, amount: bigint, state: SwapState): void {
  if (state.balance >= amount) return
  throw new BaseError(
    'INSUFFICIENT_BALANCE',
    `${getAddress(user)} holds ${fromBaseUnits(state.balance, input.decimals)} ${input.symbol}, less ` +
      `than uiAmount ${fromBaseUnits(amount, input.decimals)}: fund the wallet or reduce the amount`,
  )
}

/** A redemption's signed floor against what the pool pays now. */
export function checkFloor(pair: SwapPair, minOut: bigint, livePoolOut: bigint): void {
  if (minOut <= livePoolOut) return
  const { output } = pair
  throw new BaseError(
    'QUOTE_STALE',
    `order.minOutputAmount ${minOut} is above the ${livePoolOut} ${output.symbol} base units the pool ` +
      `pays for this amount now: re-quote (GET /api/base/redeem/quote) and re-sign with its minOutBase`,
  )
}
