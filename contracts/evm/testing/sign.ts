import { parseSignature, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

/** EIP-712 domain as wallets sign it. */
export type Domain = { name: string; version: string; chainId: number; verifyingContract: Address }

export type SplitSignature = { v: number; r: Hex; s: Hex; signature: Hex }

export const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

/** SPEC §2.2, field for field: the router's typehash is built from exactly this list. */
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

const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const

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

export type Authorization = {
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
}

export function split(signature: Hex): SplitSignature {
  const { r, s, v, yParity } = parseSignature(signature)
  return { r, s, v: Number(v ?? BigInt(yParity + 27)), signature }
}

export async function signPermit(
  owner: PrivateKeyAccount,
  domain: Domain,
  message: { spender: Address; value: bigint; nonce: bigint; deadline: bigint },
): Promise<SplitSignature> {
  const signature = await owner.signTypedData({
    domain, types: permitTypes, primaryType: 'Permit', message: { owner: owner.address, ...message },
  })
  return split(signature)
}

export async function signOrder(signer: PrivateKeyAccount, domain: Domain, order: RfqOrder): Promise<Hex> {
  return signer.signTypedData({ domain, types: rfqOrderTypes, primaryType: 'RfqOrder', message: order })
}

export async function signAuthorization(
  signer: PrivateKeyAccount,
  domain: Domain,
  kind: 'TransferWithAuthorization' | 'ReceiveWithAuthorization',
  auth: Authorization,
): Promise<SplitSignature> {
  const signature = await signer.signTypedData({
    domain, types: { [kind]: authorizationFields }, primaryType: kind, message: auth,
  } as never)
  return split(signature)
}

export async function signCancel(signer: PrivateKeyAccount, domain: Domain, nonce: Hex): Promise<SplitSignature> {
  const signature = await signer.signTypedData({
    domain,
    types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
    primaryType: 'CancelAuthorization',
    message: { authorizer: signer.address, nonce },
  })
  return split(signature)
}
