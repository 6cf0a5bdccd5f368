import { type Address, encodeAbiParameters, type Hex, keccak256 } from 'viem'
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'

/** The fields of a user operation the sponsor signs over, as VerifyingPaymaster.getHash reads them. */
export type SponsoredFields = Pick<
  UserOperation<'0.8'>,
  | 'sender'
  | 'nonce'
  | 'factory'
  | 'factoryData'
  | 'callData'
  | 'callGasLimit'
  | 'verificationGasLimit'
  | 'preVerificationGas'
  | 'maxFeePerGas'
  | 'maxPriorityFeePerGas'
  | 'paymasterVerificationGasLimit'
  | 'paymasterPostOpGasLimit'
>

/**
 * VerifyingPaymaster.getHash in TypeScript: the operation packed as the EntryPoint receives it
 * (viem's packing, which the bundler uses too), then the same abi.encode and keccak256.
 */
export function paymasterHash(
  op: SponsoredFields,
  x: { chainId: number; paymaster: Address; validUntil: number; validAfter: number },
): Hex {
  const packed = toPackedUserOperation({
    ...op,
    signature: '0x',
    paymaster: x.paymaster,
    paymasterData: '0x',
  } as UserOperation<'0.8'>)
  // paymasterAndData[20:52]: the paymaster's verification and postOp gas limits as one word.
  const gasWord = BigInt(`0x${packed.paymasterAndData.slice(2 + 40, 2 + 104)}`)
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'address' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint48' },
        { type: 'uint48' },
      ],
      [
        packed.sender,
        packed.nonce,
        keccak256(packed.initCode),
        keccak256(packed.callData),
        packed.accountGasLimits,
        gasWord,
        packed.preVerificationGas,
        packed.gasFees,
        BigInt(x.chainId),
        x.paymaster,
        x.validUntil,
        x.validAfter,
      ],
    ),
  )
}
