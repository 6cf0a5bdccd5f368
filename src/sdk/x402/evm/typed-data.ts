import type { Address, Hex } from 'viem'

/** An EIP-712 domain as tokens define it for permits and EIP-3009 authorizations. */
export type TokenDomain = { name: string; version: string; chainId: number; verifyingContract: Address }

export const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The EIP-2612 permit an erc2612 payment signs: the facilitator's signer may pull `value` until `deadline`. */
export function permitTypedData(domain: TokenDomain, m: { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint }) {
  return { domain, types: permitTypes, primaryType: 'Permit' as const, message: m }
}

export function transferWithAuthorizationTypedData(
  domain: TokenDomain,
  m: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
) {
  return { domain, types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization' as const, message: m }
}

/** `eip155:<id>` -> id, or undefined for anything else. */
export function evmChainId(caip2: string): number | undefined {
  const m = /^eip155:(\d+)$/.exec(caip2)
  const id = m ? Number(m[1]) : NaN
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}
