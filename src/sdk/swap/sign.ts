import { type Address, type Hex, type LocalAccount, parseSignature } from 'viem'
import { BaseError } from '../../errors/index.js'
import {
  ORDER_DOMAIN_NAME,
  ORDER_DOMAIN_VERSION,
  permitMessage,
  permitTypes,
  type RfqOrder,
  rfqOrderTypes,
  type TypedDomain,
} from './order.js'
import type { BaseInfo } from './types.js'

/** Anything that signs typed data locally: a viem private-key, mnemonic or HD account. */
export type SwapSigner = Pick<LocalAccount, 'address' | 'signTypedData'>

export type SignedSwap = { orderSig: Hex; v: number; r: Hex; s: Hex }

/** The order's domain (docs/swap-api.md "What the wallet signs"): the router of /api/base/info on its chain. */
export function orderDomain(info: Pick<BaseInfo, 'chainId' | 'router'>): TypedDomain {
  return {
    name: ORDER_DOMAIN_NAME,
    version: ORDER_DOMAIN_VERSION,
    chainId: info.chainId,
    verifyingContract: info.router,
  }
}

/**
 * The permit domain of an input token, exactly as /api/base/info reports it: USDC's `usdcName` and
 * `usdcVersion`, a partner stable's `redeemInputs[SYMBOL].permitDomain`. Each token's differs, and a
 * permit signed under another token's domain is rejected by the token contract.
 */
export function permitDomain(info: BaseInfo, inputToken: Address): TypedDomain {
  if (same(inputToken, info.usdc)) {
    return { name: info.usdcName, version: info.usdcVersion, chainId: info.chainId, verifyingContract: info.usdc }
  }
  const entry = Object.values(info.redeemInputs).find((r) => same(r.addr, inputToken))
  if (!entry)
    throw new BaseError('UNKNOWN_TOKEN', `${inputToken} is neither USDC nor a partner stable of /api/base/info`)
  return { ...entry.permitDomain, chainId: info.chainId }
}

/** Signs the order and the permit it implies; the permit's signature leaves split into v, r, s. */
export async function signSwap(
  signer: SwapSigner,
  info: BaseInfo,
  order: RfqOrder,
  permitNonce: bigint,
): Promise<SignedSwap> {
  const [orderSig, permitSig] = await Promise.all([
    signer.signTypedData({ domain: orderDomain(info), types: rfqOrderTypes, primaryType: 'RfqOrder', message: order }),
    signer.signTypedData({
      domain: permitDomain(info, order.inputToken),
      types: permitTypes,
      primaryType: 'Permit',
      message: permitMessage(order, info.router, permitNonce),
    }),
  ])
  return { orderSig, ...splitSignature(permitSig) }
}

/** v is 27 or 28, as EIP-2612 `permit` takes it. */
export function splitSignature(signature: Hex): { v: number; r: Hex; s: Hex } {
  const { r, s, v, yParity } = parseSignature(signature)
  return { r, s, v: Number(v ?? BigInt(yParity + 27)) }
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
