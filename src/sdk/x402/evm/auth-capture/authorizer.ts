import type { Address, Hex } from 'viem'

/**
 * The receiver authorizer's EIP-712 consent to a relayed operation (x402 auth-capture EVM binding,
 * "Authorizer signatures"): one domain per operator, `verifyingContract` the capture authorizer.
 * `Capture` and `Refund` bind the two balances the authorizer expects in the escrow's
 * `paymentState`, which cannot recur once either moved, so each signature is single-use.
 * v1.1 types; on a v1.0 escrow `Charge` and `Capture` sign `uint16 feeBps` instead of `feeAmount`.
 */
export const authorizerDomain = (chainId: number, captureAuthorizer: Address) =>
  ({ name: 'x402 Auth Capture Operator', version: '1', chainId, verifyingContract: captureAuthorizer }) as const

export const authorizerTypes = {
  'v1.1': {
    Capture: [
      { name: 'paymentInfoHash', type: 'bytes32' },
      { name: 'amount', type: 'uint256' },
      { name: 'feeAmount', type: 'uint256' },
      { name: 'feeReceiver', type: 'address' },
      { name: 'expectedCapturableAmount', type: 'uint256' },
      { name: 'expectedRefundableAmount', type: 'uint256' },
    ],
    Charge: [
      { name: 'paymentInfoHash', type: 'bytes32' },
      { name: 'amount', type: 'uint256' },
      { name: 'tokenCollector', type: 'address' },
      { name: 'collectorDataHash', type: 'bytes32' },
      { name: 'feeAmount', type: 'uint256' },
      { name: 'feeReceiver', type: 'address' },
    ],
  },
  'v1.0': {
    Capture: [
      { name: 'paymentInfoHash', type: 'bytes32' },
      { name: 'amount', type: 'uint256' },
      { name: 'feeBps', type: 'uint16' },
      { name: 'feeReceiver', type: 'address' },
      { name: 'expectedCapturableAmount', type: 'uint256' },
      { name: 'expectedRefundableAmount', type: 'uint256' },
    ],
    Charge: [
      { name: 'paymentInfoHash', type: 'bytes32' },
      { name: 'amount', type: 'uint256' },
      { name: 'tokenCollector', type: 'address' },
      { name: 'collectorDataHash', type: 'bytes32' },
      { name: 'feeBps', type: 'uint16' },
      { name: 'feeReceiver', type: 'address' },
    ],
  },
  Void: [{ name: 'paymentInfoHash', type: 'bytes32' }],
  Refund: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'tokenCollector', type: 'address' },
    { name: 'expectedCapturableAmount', type: 'uint256' },
    { name: 'expectedRefundableAmount', type: 'uint256' },
  ],
} as const

/** What the authorizer signs for a relayed charge or lifecycle operation. */
export type AuthorizerMessage =
  | {
      type: 'capture'
      version: 'v1.0' | 'v1.1'
      paymentInfoHash: Hex
      amount: bigint
      fee: bigint
      feeReceiver: Address
      expectedCapturableAmount: bigint
      expectedRefundableAmount: bigint
    }
  | {
      type: 'charge'
      version: 'v1.0' | 'v1.1'
      paymentInfoHash: Hex
      amount: bigint
      tokenCollector: Address
      collectorDataHash: Hex
      fee: bigint
      feeReceiver: Address
    }
  | { type: 'void'; paymentInfoHash: Hex }
  | {
      type: 'refund'
      paymentInfoHash: Hex
      amount: bigint
      tokenCollector: Address
      expectedCapturableAmount: bigint
      expectedRefundableAmount: bigint
    }

/**
 * The typed data a receiver authorizer signs for one operation (viem's signTypedData shape).
 *
 * @example
 * await authorizer.signTypedData(authorizerTypedData(84532, operator, { type: 'void', paymentInfoHash }))
 */
export function authorizerTypedData(chainId: number, captureAuthorizer: Address, m: AuthorizerMessage) {
  const domain = authorizerDomain(chainId, captureAuthorizer)
  if (m.type === 'void')
    return {
      domain,
      types: { Void: authorizerTypes.Void },
      primaryType: 'Void',
      message: { paymentInfoHash: m.paymentInfoHash },
    } as const
  if (m.type === 'refund') {
    const { type: _, ...message } = m
    return { domain, types: { Refund: authorizerTypes.Refund }, primaryType: 'Refund', message } as const
  }
  const { type, version, fee, ...rest } = m
  const message = version === 'v1.0' ? { ...rest, feeBps: Number(fee) } : { ...rest, feeAmount: fee }
  if (type === 'charge')
    return { domain, types: { Charge: authorizerTypes[version].Charge }, primaryType: 'Charge', message } as const
  return { domain, types: { Capture: authorizerTypes[version].Capture }, primaryType: 'Capture', message } as const
}
