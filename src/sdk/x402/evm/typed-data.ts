import type { Address, Hex } from 'viem'
import { permitTypes, type TypedDomain, transferWithAuthorizationTypes } from '../../eip712.js'

/** An EIP-712 domain as tokens define it for permits and EIP-3009 authorizations. */
export type TokenDomain = TypedDomain
export { permitTypes, transferWithAuthorizationTypes }

/** The EIP-2612 permit an erc2612 payment signs: the facilitator's signer may pull `value` until `deadline`. */
export function permitTypedData(
  domain: TokenDomain,
  m: { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint },
) {
  return { domain, types: permitTypes, primaryType: 'Permit' as const, message: m }
}

export function transferWithAuthorizationTypedData(
  domain: TokenDomain,
  m: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
) {
  return {
    domain,
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: m,
  }
}

/** `eip155:<id>` -> id, or undefined for anything else. */
export function evmChainId(caip2: string): number | undefined {
  const m = /^eip155:(\d+)$/.exec(caip2)
  const id = m ? Number(m[1]) : NaN
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}
