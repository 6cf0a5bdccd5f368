import type { Address, Hex } from 'viem'
import { permitTypes, type TypedDomain } from '../eip712.js'

/**
 * The router's EIP-712 domain name and version (docs/swap-api.md "What the wallet signs"). chainId and
 * verifyingContract come from
 * GET /api/base/info; the router also reports the whole domain through ERC-5267 `eip712Domain()`.
 */
export const ORDER_DOMAIN_NAME = 'ParxRfqSwap'
export const ORDER_DOMAIN_VERSION = '1'

export type { TypedDomain }

/** docs/swap-api.md "What the wallet signs", field for field: the router's typehash is built from exactly this list. */
export const rfqOrderTypes = {
  RfqOrder: [
    { name: 'user', type: 'address' },
    { name: 'inputToken', type: 'address' },
    { name: 'inputAmount', type: 'uint256' },
    { name: 'outputToken', type: 'address' },
    { name: 'minOutputAmount', type: 'uint256' },
    { name: 'solver', type: 'address' },
    { name: 'deadline', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

export { permitTypes }

export type RfqOrder = {
  user: Address
  inputToken: Address
  inputAmount: bigint
  outputToken: Address
  minOutputAmount: bigint
  solver: Address
  deadline: bigint
  nonce: bigint
}

/** The order as the request body carries it: every amount a decimal string (JSON has no uint256). */
export type WireOrder = { [K in keyof RfqOrder]: RfqOrder[K] extends bigint ? string : RfqOrder[K] }

export const toWireOrder = (o: RfqOrder): WireOrder => ({
  ...o,
  inputAmount: o.inputAmount.toString(),
  minOutputAmount: o.minOutputAmount.toString(),
  deadline: o.deadline.toString(),
  nonce: o.nonce.toString(),
})

/**
 * The permit the router runs is fixed by the order, because the request carries only its v, r, s:
 * owner = user, spender = router, value = inputAmount, deadline = order.deadline, and nonce = the
 * input token's `nonces(user)`.
 */
export const permitMessage = (order: RfqOrder, router: Address, permitNonce: bigint) => ({
  owner: order.user,
  spender: router,
  value: order.inputAmount,
  nonce: permitNonce,
  deadline: order.deadline,
})

/** The body of POST /api/base/swap and /api/base/redeem (docs/swap-api.md "Routes"). */
export type SwapRequestBody = {
  user: Address
  uiAmount: string | number
  in?: string
  out?: string
  order: WireOrder
  orderSig: Hex
  v: number
  r: Hex
  s: Hex
}
