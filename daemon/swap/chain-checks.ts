import { hashTypedData, type Address, type Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import { permitMessage, permitTypes, type RfqOrder } from '../../src/sdk/swap/order.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'
import type { Inventory } from './inventory.js'
import { wrongSigner } from './order-checks.js'
import type { SwapPair } from './pairs.js'
import type { UserState } from './user-state.js'

/** SPEC §4.1 step 3: both failures mean the order must be signed again. */
export function checkDeadlineAndNonce(order: RfqOrder, state: UserState): void {
  const now = BigInt(Math.floor(Date.now() / 1000))
  const chainNow = state.chainTime > now ? state.chainTime : now
  if (order.deadline < chainNow) {
    throw new BaseError('DEADLINE_EXPIRED', `order.deadline ${order.deadline} has passed (chain time ${chainNow}): re-sign the order and the permit with a later deadline`)
  }
  if (order.nonce !== state.routerNonce) {
    const why = order.nonce < state.routerNonce ? 'an order with this nonce has already settled (a replay)' : 'it is ahead of the router'
    throw new BaseError('NONCE_MISMATCH', `order.nonce ${order.nonce} is not the router's nonces(user) = ${state.routerNonce}; ${why}: re-read the nonce and re-sign`)
  }
}

/**
 * The permit the request's v, r, s must sign is fixed by the order (owner = user, spender = router,
 * value = inputAmount, deadline = order.deadline, nonce = the token's nonces(user)). A permit that
 * does not verify is tolerated only when a standing allowance already covers the input, as the
 * router tolerates it.
 */
export async function checkPermit(chain: EvmChain, input: EvmToken, order: RfqOrder, sig: { v: number; r: Hex; s: Hex }, state: UserState): Promise<void> {
  const router = chain.contracts.router!
  const domain = { ...input.permitDomain!, chainId: chain.chainId, verifyingContract: input.address }
  const digest = hashTypedData({ domain, types: permitTypes, primaryType: 'Permit', message: permitMessage(order, router, state.permitNonce) })
  if ((await wrongSigner(digest, sig, order.user)) === undefined || state.allowance >= order.inputAmount) return
  throw new BaseError('INVALID_SIGNATURE', `the permit (v, r, s) does not verify for ${order.user} under ${input.symbol}'s permit domain { name: '${domain.name}', version: '${domain.version}' }: sign the EIP-2612 permit in that domain with owner = user, spender = router ${router}, value = inputAmount, nonce = ${state.permitNonce}, deadline = order.deadline`)
}

/** SPEC §4.1 step 4 for fills paid from the solver's inventory. */
export function checkInventory(output: EvmToken, amount: bigint, inventory: Inventory): void {
  const inv = inventory[output.symbol]!
  const need = fromBaseUnits(amount, output.decimals)
  if (inv.balance < amount) {
    throw new BaseError('INVENTORY_SHORT', `the solver holds ${fromBaseUnits(inv.balance, output.decimals)} ${output.symbol}, less than the ${need} this swap pays: reduce the amount (see out.${output.symbol}.inventory of /api/base/info) or retry later`)
  }
  if (inv.routerAllowance < amount) {
    throw new BaseError('INVENTORY_SHORT', `the solver's router allowance of ${output.symbol} is ${fromBaseUnits(inv.routerAllowance, output.decimals)}, less than the ${need} this swap pays: reduce the amount or retry later`)
  }
}

/** SPEC §4.1 step 5. */
export function checkBalance(input: EvmToken, user: Address, amount: bigint, state: UserState): void {
  if (state.balance >= amount) return
  throw new BaseError('INSUFFICIENT_BALANCE', `${user} holds ${fromBaseUnits(state.balance, input.decimals)} ${input.symbol}, less than uiAmount ${fromBaseUnits(amount, input.decimals)}: fund the wallet or reduce the amount`)
}

/** A redemption's signed floor against what the pool pays now. */
export function checkFloor(pair: SwapPair, minOut: bigint, livePoolOut: bigint): void {
  if (minOut <= livePoolOut) return
  const { output } = pair
  throw new BaseError('QUOTE_STALE', `order.minOutputAmount ${minOut} is above the ${livePoolOut} ${output.symbol} base units the pool pays for this amount now: re-quote (GET /api/base/redeem/quote) and re-sign with its minOutBase`)
}
