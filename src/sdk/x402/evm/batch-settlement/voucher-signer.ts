import type { Address, Hex } from 'viem'
import { isSignedBy } from '../../../evm-signer.js'
import { voucherDigest } from './voucher-digest.js'

/**
 * Whether `signature` is `signer`'s over the voucher (`channelId`, `maxClaimableAmount`) on
 * `chainId`, judged as the contract's ECDSA.recoverCalldata judges it at the claim (65 bytes, low
 * s, v 27/28), so what is accepted can be claimed. An amount beyond uint128 signs nothing the
 * contract could check.
 */
export function voucherSignedBy(
  signer: Address,
  chainId: number,
  channelId: Hex,
  maxClaimableAmount: bigint,
  signature: Hex,
): boolean {
  if (maxClaimableAmount < 0n || maxClaimableAmount >= 2n ** 128n) return false
  return isSignedBy(signer, voucherDigest(chainId, channelId, maxClaimableAmount), signature)
}
