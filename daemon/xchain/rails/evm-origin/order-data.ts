import type { EvmOrder } from '../../../../contracts/xchain/statement.js'
import type { EvmOrderJson } from '../../../../src/sdk/xchain/wire.js'

/**
 * The evm-origin order as xchain_orders.order_data keeps it and the build response shows it: uint256 as decimal
 * strings.
 */
export function orderJson(o: EvmOrder): EvmOrderJson {
  return {
    user: o.user,
    inputToken: o.inputToken,
    inputAmount: o.inputAmount.toString(),
    destChain: o.destChain,
    outputToken: o.outputToken,
    outputAmount: o.outputAmount.toString(),
    recipient: o.recipient,
    fillDeadline: o.fillDeadline,
    expires: o.expires,
    nonce: o.nonce.toString(),
  }
}

export function orderFromJson(j: EvmOrderJson): EvmOrder {
  return { ...j, inputAmount: BigInt(j.inputAmount), outputAmount: BigInt(j.outputAmount), nonce: BigInt(j.nonce) }
}

export const encodeEvmOrder = (o: EvmOrder): string => JSON.stringify(orderJson(o))
export const decodeEvmOrder = (json: string): EvmOrder => orderFromJson(JSON.parse(json) as EvmOrderJson)
