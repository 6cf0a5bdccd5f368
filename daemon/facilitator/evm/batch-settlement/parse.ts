import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem'
import type { ChannelConfig } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'

export type SignedVoucher = { channelId: Hex; maxClaimableAmount: bigint; signature: Hex }
/** One `claimWithSignature` row as the contract takes it. */
export type ClaimRow = {
  voucher: { channel: ChannelConfig; maxClaimableAmount: bigint }
  signature: Hex
  totalClaimed: bigint
}

const address = (v: unknown): Address | undefined =>
  typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined
const bytes32 = (v: unknown): Hex | undefined =>
  typeof v === 'string' && isHex(v) && v.length === 66 ? (v.toLowerCase() as Hex) : undefined
const hex = (v: unknown): Hex | undefined => (typeof v === 'string' && isHex(v) && v.length > 2 ? v : undefined)

/**
 * A non-negative integer below 2^256 as the wire carries it: a decimal string, a 0x hex string (salts) or a safe
 * integer.
 */
export function uint(v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v !== 'string' || !/^(\d{1,78}|0x[0-9a-fA-F]{1,64})$/.test(v)) return undefined
  const n = BigInt(v)
  return n < 2n ** 256n ? n : undefined
}

export function parseConfig(v: unknown): ChannelConfig | undefined {
  if (!isRecord(v)) return undefined
  const c = {
    payer: address(v.payer),
    payerAuthorizer: address(v.payerAuthorizer),
    receiver: address(v.receiver),
    receiverAuthorizer: address(v.receiverAuthorizer),
    token: address(v.token),
    salt: bytes32(v.salt),
  }
  const withdrawDelay = uint(v.withdrawDelay)
  if (Object.values(c).some((x) => x === undefined) || withdrawDelay === undefined || withdrawDelay >= 2n ** 40n)
    return undefined
  return { ...(c as Omit<ChannelConfig, 'withdrawDelay'>), withdrawDelay: Number(withdrawDelay) }
}

export function parseVoucher(v: unknown): SignedVoucher | undefined {
  if (!isRecord(v)) return undefined
  const channelId = bytes32(v.channelId)
  const maxClaimableAmount = uint(v.maxClaimableAmount)
  const signature = hex(v.signature)
  return channelId && maxClaimableAmount !== undefined && signature
    ? { channelId, maxClaimableAmount, signature }
    : undefined
}

export function parseClaims(v: unknown): ClaimRow[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined
  const rows: ClaimRow[] = []
  for (const r of v) {
    if (!isRecord(r) || !isRecord(r.voucher)) return undefined
    const channel = parseConfig(r.voucher.channel)
    const maxClaimableAmount = uint(r.voucher.maxClaimableAmount)
    const totalClaimed = uint(r.totalClaimed)
    const signature = hex(r.signature)
    if (!channel || maxClaimableAmount === undefined || totalClaimed === undefined || !signature) return undefined
    rows.push({ voucher: { channel, maxClaimableAmount }, signature, totalClaimed })
  }
  return rows
}

export const optionalSignature = (v: unknown): Hex | undefined => hex(v)
export { address as parseAddress }
