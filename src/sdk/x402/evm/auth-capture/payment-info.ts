import { type Address, encodeAbiParameters, type Hex, keccak256, toBytes, zeroAddress } from 'viem'

/**
 * The escrow's `PaymentInfo`, field names as in Solidity (the wire calls `operator`
 * `captureAuthorizer`, `authorizationExpiry` `captureDeadline`, `refundExpiry` `refundDeadline`,
 * `feeReceiver` `feeRecipient`).
 */
export type PaymentInfo = {
  operator: Address
  payer: Address
  receiver: Address
  token: Address
  maxAmount: bigint
  preApprovalExpiry: number
  authorizationExpiry: number
  refundExpiry: number
  minFeeBps: number
  maxFeeBps: number
  feeReceiver: Address
  salt: bigint
}

export const paymentInfoComponents = [
  { name: 'operator', type: 'address' },
  { name: 'payer', type: 'address' },
  { name: 'receiver', type: 'address' },
  { name: 'token', type: 'address' },
  { name: 'maxAmount', type: 'uint120' },
  { name: 'preApprovalExpiry', type: 'uint48' },
  { name: 'authorizationExpiry', type: 'uint48' },
  { name: 'refundExpiry', type: 'uint48' },
  { name: 'minFeeBps', type: 'uint16' },
  { name: 'maxFeeBps', type: 'uint16' },
  { name: 'feeReceiver', type: 'address' },
  { name: 'salt', type: 'uint256' },
] as const

export const PAYMENT_INFO_TYPEHASH = keccak256(
  toBytes(
    'PaymentInfo(address operator,address payer,address receiver,address token,uint120 ' +
      'maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 ' +
      'refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
  ),
)

/** The tag of the salt commitment to a receiver authorizer and a policy (x402 auth-capture EVM binding). */
export const SALT_BINDING_TYPEHASH = keccak256(
  toBytes('x402AuthCaptureSaltBinding(address receiverAuthorizer,address policy,uint256 saltNonce)'),
)

/**
 * The escrow's `getHash`: the payment's id, bound to the chain and the escrow. With the payer
 * zeroed it is the nonce of the payer's token authorization (`signatureNonce`).
 *
 * @example
 * paymentInfoHash(info, 84532, AUTH_CAPTURE_V1_1.escrow) // '0x…', what the escrow's paymentState is keyed by
 */
export function paymentInfoHash(info: PaymentInfo, chainId: number, escrow: Address): Hex {
  const structHash = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, ...paymentInfoComponents],
      [
        PAYMENT_INFO_TYPEHASH,
        info.operator,
        info.payer,
        info.receiver,
        info.token,
        info.maxAmount,
        info.preApprovalExpiry,
        info.authorizationExpiry,
        info.refundExpiry,
        info.minFeeBps,
        info.maxFeeBps,
        info.feeReceiver,
        info.salt,
      ],
    ),
  )
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }],
      [BigInt(chainId), escrow, structHash],
    ),
  )
}

/** The nonce a payer signs into its ERC-3009 or Permit2 authorization: the hash with no payer. */
export function signatureNonce(info: PaymentInfo, chainId: number, escrow: Address): Hex {
  return paymentInfoHash({ ...info, payer: zeroAddress }, chainId, escrow)
}

/** `PaymentInfo.salt` when a receiver authorizer or a policy is set: a commitment to both. */
export function boundSalt(receiverAuthorizer: Address, policy: Address, saltNonce: bigint): bigint {
  return BigInt(
    keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
        [SALT_BINDING_TYPEHASH, receiverAuthorizer, policy, saltNonce],
      ),
    ),
  )
}
