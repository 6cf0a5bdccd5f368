import { type Address, type Hex, parseSignature } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { authorizationFields, permitTypes, type TypedDomain } from '../../../src/sdk/eip712.js'
import { type RfqOrder, rfqOrderTypes } from '../../../src/sdk/swap/order.js'

/** EIP-712 domain as wallets sign it. */
export type Domain = TypedDomain

export type SplitSignature = { v: number; r: Hex; s: Hex; signature: Hex }

export { permitTypes, type RfqOrder, rfqOrderTypes }

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
    domain,
    types: permitTypes,
    primaryType: 'Permit',
    message: { owner: owner.address, ...message },
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
    domain,
    types: { [kind]: authorizationFields },
    primaryType: kind,
    message: auth,
  } as never)
  return split(signature)
}

export async function signCancel(signer: PrivateKeyAccount, domain: Domain, nonce: Hex): Promise<SplitSignature> {
  const signature = await signer.signTypedData({
    domain,
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: signer.address, nonce },
  })
  return split(signature)
}
