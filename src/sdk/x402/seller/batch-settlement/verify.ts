import { type Hex, isAddressEqual, zeroAddress } from 'viem'
import { channelIdMemo } from '../../evm/batch-settlement/channel-id.js'
import type { ChannelConfig } from '../../evm/batch-settlement/contracts.js'
import { voucherSignedBy } from '../../evm/batch-settlement/voucher-signer.js'
import { reasons } from '../../reasons.js'
import type { ChannelRecord } from './store.js'

export type LocalVerdict = { isValid: true } | { isValid: false; invalidReason: string; invalidMessage: string }

/**
 * Judges a voucher without the facilitator, as the spec's server may when its mirror of the
 * channel is fresh: the config hashes to the id, an EOA payer authorizer signed it (EIP-712 under
 * the settlement domain), and it is above what was claimed and within the balance. `undefined`:
 * cannot be judged here (no fresh mirror, or a smart-wallet payer whose signature needs the chain);
 * ask the facilitator.
 */
export async function verifyVoucherLocally(p: {
  config: ChannelConfig
  channelId: Hex
  maxClaimableAmount: bigint
  signature: Hex
  chainId: number
  channel: ChannelRecord | undefined
  ttlMs: number
  now: number
}): Promise<LocalVerdict | undefined> {
  const c = p.channel
  if (!c || c.syncedAt === null || p.now - c.syncedAt > p.ttlMs) return undefined
  if (isAddressEqual(p.config.payerAuthorizer, zeroAddress)) return undefined
  // A withdrawal under way may end the channel before a claim: the facilitator reads the chain.
  if (c.withdrawRequestedAt > 0) return undefined
  const bad = (invalidReason: string, invalidMessage: string): LocalVerdict => ({
    isValid: false,
    invalidReason,
    invalidMessage,
  })
  if (
    channelIdMemo(p.config, p.chainId).toLowerCase() !== p.channelId.toLowerCase() ||
    c.channelId.toLowerCase() !== p.channelId.toLowerCase()
  ) {
    return bad(reasons.batchChannelIdMismatch, "the channel config does not hash to the voucher's channel id")
  }
  if (!voucherSignedBy(p.config.payerAuthorizer, p.chainId, p.channelId, p.maxClaimableAmount, p.signature))
    return bad(reasons.batchVoucherSignature, "the voucher is not signed by the channel's payer authorizer")
  if (p.maxClaimableAmount > BigInt(c.balance))
    return bad(
      reasons.batchCumulativeExceedsBalance,
      `the voucher's ${p.maxClaimableAmount} exceeds the channel's balance ${c.balance}`,
    )
  if (p.maxClaimableAmount <= BigInt(c.totalClaimed))
    return bad(
      reasons.batchCumulativeBelowClaimed,
      `the voucher's ${p.maxClaimableAmount} is not above the ${c.totalClaimed} already claimed`,
    )
  return { isValid: true }
}
