import { getAddress, hashTypedData, recoverAddress, type Address, type Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import { rescaleExact } from '../../src/sdk/swap/amounts.js'
import { orderDomain } from '../../src/sdk/swap/sign.js'
import { rfqOrderTypes, type RfqOrder } from '../../src/sdk/swap/order.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import type { SwapPair } from './pairs.js'

export type OrderContext = {
  pair: SwapPair
  user: Address
  uiAmount: string
  order: RfqOrder
  solver: Address
}

/**
 * SPEC §4.1 step 2: every order field against the request, in the SPEC's field order, each failure
 * naming the field, the value expected and what to do. Pure: no chain read.
 */
export function checkOrderFields(x: OrderContext): void {
  const { pair, order } = x
  const { input, output } = pair
  if (!same(order.user, x.user)) {
    mismatch(`order.user ${order.user} differs from user ${x.user}: the order must be for the swapping address; re-sign it with user = ${x.user}`)
  }
  if (!same(order.inputToken, input.address)) {
    mismatch(`order.inputToken ${order.inputToken} is not ${input.symbol} (${input.address}), the request's in: re-sign with inputToken = ${input.address}, or set in to the token you signed`)
  }
  const amount = toBaseUnits(x.uiAmount, input.decimals, 'uiAmount')
  if (order.inputAmount !== amount) {
    throw new BaseError('AMOUNT_MISMATCH', `uiAmount ${x.uiAmount} ${input.symbol} is ${amount} base units at ${input.decimals} decimals, but order.inputAmount is ${order.inputAmount}: send the amount you signed, or re-sign with inputAmount = ${amount}`)
  }
  if (!same(order.outputToken, output.address)) {
    mismatch(`order.outputToken ${order.outputToken} is not ${output.symbol} (${output.address}), the request's out: re-sign with outputToken = ${output.address}, or set out to the token you signed`)
  }
  if (pair.kind === 'redeem') {
    if (order.minOutputAmount === 0n) {
      mismatch(`order.minOutputAmount is 0: a redemption signs the quote's minOutBase (GET /api/base/redeem/quote); re-quote and re-sign`)
    }
  } else {
    const par = rescaleExact(amount, input.decimals, output.decimals, 'uiAmount')
    if (order.minOutputAmount !== par) {
      mismatch(`order.minOutputAmount ${order.minOutputAmount} is not the par amount ${par} (${x.uiAmount} ${input.symbol} at ${output.symbol}'s ${output.decimals} decimals = ${fromBaseUnits(par, output.decimals)}): re-sign with minOutputAmount = ${par}`)
    }
  }
  if (!same(order.solver, x.solver)) {
    mismatch(`order.solver ${order.solver} is not the solver ${x.solver} of /api/base/info: re-sign with solver = ${x.solver}`)
  }
}

/** The EIP-712 digest of the order under the router's domain (the router's `hashOrder`). */
export function orderDigest(order: RfqOrder, domain: { chainId: number; router: Address }): Hex {
  return hashTypedData({ domain: orderDomain(domain), types: rfqOrderTypes, primaryType: 'RfqOrder', message: order })
}

/**
 * Whether a signature over `digest` recovers to `expected`. `undefined` when it does; otherwise what
 * it recovered to (null: not a valid ECDSA signature at all).
 */
export async function wrongSigner(digest: Hex, signature: Hex | { r: Hex; s: Hex; v: number }, expected: Address): Promise<Address | null | undefined> {
  try {
    const sig = typeof signature === 'string' ? signature : { r: signature.r, s: signature.s, yParity: signature.v - 27 }
    const signer = await recoverAddress({ hash: digest, signature: sig })
    return same(signer, expected) ? undefined : getAddress(signer)
  } catch {
    return null
  }
}

function mismatch(message: string): never {
  throw new BaseError('ORDER_MISMATCH', message)
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
