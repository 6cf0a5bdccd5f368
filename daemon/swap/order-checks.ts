import {
  type Address,
  concatHex,
  encodeAbiParameters,
  getAddress,
  getTypesForEIP712Domain,
  type Hex,
  hashDomain,
  keccak256,
  recoverAddress,
  toHex,
} from 'viem'
import { BaseError } from '../../src/errors/index.js'
import { rescaleExact } from '../../src/sdk/swap/amounts.js'
import { type RfqOrder, rfqOrderTypes } from '../../src/sdk/swap/order.js'
import { orderDomain } from '../../src/sdk/swap/sign.js'
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
 * docs/swap-api.md "Routes", check 2: every order field against the request, in the order's field order, each failure
 * naming the field, the value expected and what to do. Pure: no chain read.
 */
export function checkOrderFields(x: OrderContext): void {
  const { pair, order } = x
  const { input, output } = pair
  if (!same(order.user, x.user)) {
    mismatch(
      `order.user ${getAddress(order.user)} differs from user ${getAddress(x.user)}: the ` +
        `order must be for the swapping address; re-sign it with user = ${getAddress(x.user)}`,
    )
  }
  if (!same(order.inputToken, input.address)) {
    mismatch(
      `order.inputToken ${getAddress(order.inputToken)} is not ${input.symbol} (${input.address}), ` +
        `the request's in: re-sign with inputToken = ${input.address}, or set in to the token you signed`,
    )
  }
  const amount = toBaseUnits(x.uiAmount, input.decimals, 'uiAmount')
  if (order.inputAmount !== amount) {
    throw new BaseError(
      'AMOUNT_MISMATCH',
      `uiAmount ${x.uiAmount} ${input.symbol} is ${amount} base units at ` +
        `${input.decimals} decimals, but order.inputAmount is ${order.inputAmount}: ` +
        `send the amount you signed, or re-sign with inputAmount = ${amount}`,
    )
  }
  if (!same(order.outputToken, output.address)) {
    mismatch(
      `order.outputToken ${getAddress(order.outputToken)} is not ${output.symbol} (${output.address}), ` +
        `the request's out: re-sign with outputToken = ${output.address}, or set out to the token you signed`,
    )
  }
  if (pair.kind === 'redeem') {
    if (order.minOutputAmount === 0n) {
      mismatch(
        `order.minOutputAmount is 0: a redemption signs the quote's ` +
          `minOutBase (GET /api/base/redeem/quote); re-quote and re-sign`,
      )
    }
  } else {
    const par = rescaleExact(amount, input.decimals, output.decimals, 'uiAmount')
    if (order.minOutputAmount !== par) {
      mismatch(
        `order.minOutputAmount ${order.minOutputAmount} is not the par amount ${par} ` +
          `(${x.uiAmount} ${input.symbol} at ${output.symbol}'s ${output.decimals} decimals ` +
          `= ${fromBaseUnits(par, output.decimals)}): re-sign with minOutputAmount = ${par}`,
      )
    }
  }
  if (!same(order.solver, x.solver)) {
    mismatch(
      `order.solver ${getAddress(order.solver)} is not the solver ` +
        `${x.solver} of /api/base/info: re-sign with solver = ${x.solver}`,
    )
  }
}

/**
 * The EIP-712 digest of the order under the router's domain (the router's `hashOrder`). The type
 * hash and the domain separator are fixed per router, so only the struct is hashed per order.
 */
export function orderDigest(order: RfqOrder, domain: { chainId: number; router: Address }): Hex {
  const key = `${domain.chainId}:${domain.router}`
  let separator = separators.get(key)
  if (!separator) {
    const d = orderDomain(domain)
    separators.set(
      key,
      (separator = hashDomain({ domain: d, types: { EIP712Domain: getTypesForEIP712Domain({ domain: d }) } } as never)),
    )
  }
  const struct = keccak256(
    encodeAbiParameters(orderFields, [
      ORDER_TYPEHASH,
      order.user,
      order.inputToken,
      order.inputAmount,
      order.outputToken,
      order.minOutputAmount,
      order.solver,
      order.deadline,
      order.nonce,
    ]),
  )
  return keccak256(concatHex(['0x1901', separator, struct]))
}

const separators = new Map<string, Hex>()
const ORDER_TYPEHASH = keccak256(
  toHex(`RfqOrder(${rfqOrderTypes.RfqOrder.map((f) => `${f.type} ${f.name}`).join(',')})`),
)
const orderFields = [{ type: 'bytes32' }, ...rfqOrderTypes.RfqOrder.map((f) => ({ type: f.type }))] as const

/**
 * Whether a signature over `digest` recovers to `expected`. `undefined` when it does; otherwise what
 * it recovered to (null: not a valid ECDSA signature at all).
 */
export async function wrongSigner(
  digest: Hex,
  signature: Hex | { r: Hex; s: Hex; v: number },
  expected: Address,
): Promise<Address | null | undefined> {
  try {
    const sig =
      typeof signature === 'string' ? signature : { r: signature.r, s: signature.s, yParity: signature.v - 27 }
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
