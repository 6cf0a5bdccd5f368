import { type Hex, hashDomain, hexToBytes, keccak256, stringToBytes } from 'viem'
import { batchSettlementDomain } from './contracts.js'

const VOUCHER_TYPEHASH = keccak256(stringToBytes('Voucher(bytes32 channelId,uint128 maxClaimableAmount)'), 'bytes')
const eip712Domain = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const
/** One per chain id a seller serves (a handful): the domain never changes. */
const separators = new Map<number, Uint8Array>()

/**
 * The EIP-712 digest a voucher signs (`hashTypedData(voucherTypedData(...))`, what the contract's
 * `getVoucherDigest` computes), as 32 bytes: the domain separator is hashed once per chain and the
 * two-field struct is laid out by hand. viem's generic path validates and encodes the types on
 * every call, ~0.5 ms of CPU here against ~0.02 ms for two keccaks; a seller computes one per
 * voucher-paid request.
 */
export function voucherDigest(chainId: number, channelId: Hex, maxClaimableAmount: bigint): Uint8Array {
  let domain = separators.get(chainId)
  if (!domain) {
    domain = hexToBytes(
      hashDomain({
        domain: { ...batchSettlementDomain(chainId), chainId: BigInt(chainId) },
        types: { EIP712Domain: eip712Domain },
      }),
    )
    separators.set(chainId, domain)
  }
  const struct = new Uint8Array(96)
  struct.set(VOUCHER_TYPEHASH, 0)
  struct.set(hexToBytes(channelId, { size: 32 }), 32)
  if (maxClaimableAmount < 0n || maxClaimableAmount >= 2n ** 128n)
    throw new RangeError(`maxClaimableAmount ${maxClaimableAmount} is not a uint128`)
  let amount = maxClaimableAmount
  for (let i = 95; i >= 64 && amount > 0n; i--, amount >>= 8n) struct[i] = Number(amount & 0xffn)
  const message = new Uint8Array(66)
  message[0] = 0x19
  message[1] = 0x01
  message.set(domain, 2)
  message.set(keccak256(struct, 'bytes'), 34)
  return keccak256(message, 'bytes')
}
