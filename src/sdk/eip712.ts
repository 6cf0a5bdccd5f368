import type { Address } from 'viem'

/** An EIP-712 domain as wallets sign it (tokens' permit domains, the router's order domain). */
export type TypedDomain = { name: string; version: string; chainId: number; verifyingContract: Address }

/** EIP-2612 permit. */
export const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

/** EIP-3009 authorization fields, shared by TransferWithAuthorization and ReceiveWithAuthorization. */
export const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const

export const transferWithAuthorizationTypes = { TransferWithAuthorization: authorizationFields } as const
export const receiveWithAuthorizationTypes = { ReceiveWithAuthorization: authorizationFields } as const

/**
 * Permit2's PermitWitnessTransferFrom with the x402 exact witness, as the reference client signs
 * it. The domain has no version: `{ name: 'Permit2', chainId, verifyingContract: Permit2 }`.
 */
export const permit2WitnessTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const

/** The x402 `upto` scheme's Permit2 witness: as `exact`'s, plus the one facilitator allowed to settle. */
export const uptoPermit2WitnessTypes = {
  PermitWitnessTransferFrom: permit2WitnessTypes.PermitWitnessTransferFrom,
  TokenPermissions: permit2WitnessTypes.TokenPermissions,
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'facilitator', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const
