import { type Address, getAddress, type Hex, isAddress, isAddressEqual, isHex } from 'viem'
import { channelIdMemo } from '../../evm/batch-settlement/channel-id.js'
import type { ChannelConfig } from '../../evm/batch-settlement/contracts.js'
import { reasons } from '../../reasons.js'
import type { PaymentRequirements } from '../../types.js'
import { isRecord } from '../../wire.js'

/** A buyer's batch-settlement payload as the seller reads it (the facilitator judges the rest). */
export type ChannelPayment = {
  type: 'deposit' | 'voucher' | 'refund'
  config: ChannelConfig
  channelId: Hex
  maxClaimableAmount: bigint
  signature: Hex
  chainId: number
  raw: Record<string, unknown>
}

const address = (v: unknown): Address | undefined =>
  typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined
const uint = (v: unknown): bigint | undefined =>
  typeof v === 'string' && /^(\d{1,39}|0x[0-9a-fA-F]{1,64})$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : undefined

/**
 * The payload, or the spec's reason it cannot be one; its channel must be this seller's (payTo, asset, authorizer,
 * delay).
 */
export function readChannelPayment(
  payload: unknown,
  r: PaymentRequirements,
): ChannelPayment | { reason: string; message: string } {
  if (!isRecord(payload) || !['deposit', 'voucher', 'refund'].includes(String(payload.type))) {
    return { reason: reasons.batchPayloadType, message: 'payload.type must be deposit, voucher or refund' }
  }
  const c = payload.channelConfig,
    v = payload.voucher
  const chainId = Number(/^eip155:(\d+)$/.exec(r.network)?.[1])
  const bad = {
    reason: payload.type === 'refund' ? reasons.batchRefundPayload : reasons.batchVoucherPayload,
    message: 'the payload needs channelConfig and voucher {channelId, maxClaimableAmount, signature}',
  }
  if (!isRecord(c) || !isRecord(v) || !chainId) return bad
  const config = {
    payer: address(c.payer),
    payerAuthorizer: address(c.payerAuthorizer),
    receiver: address(c.receiver),
    receiverAuthorizer: address(c.receiverAuthorizer),
    token: address(c.token),
    withdrawDelay: uint(c.withdrawDelay),
    salt: typeof c.salt === 'string' && isHex(c.salt) && c.salt.length === 66 ? (c.salt as Hex) : undefined,
  }
  const max = uint(v.maxClaimableAmount)
  const id =
    typeof v.channelId === 'string' && isHex(v.channelId) && v.channelId.length === 66
      ? (v.channelId.toLowerCase() as Hex)
      : undefined
  const sig =
    typeof v.signature === 'string' && isHex(v.signature) && v.signature.length > 2 ? (v.signature as Hex) : undefined
  if (Object.values(config).some((x) => x === undefined) || max === undefined || max >= 2n ** 128n || !id || !sig)
    return bad
  const cfg = { ...config, withdrawDelay: Number(config.withdrawDelay) } as ChannelConfig
  if (channelIdMemo(cfg, chainId).toLowerCase() !== id)
    return {
      reason: reasons.batchChannelIdMismatch,
      message: "the channel config does not hash to the voucher's channel id",
    }
  if (!isAddressEqual(cfg.receiver, r.payTo as Address))
    return {
      reason: reasons.batchReceiverMismatch,
      message: `the channel's receiver ${cfg.receiver} is not payTo ${r.payTo}`,
    }
  if (!isAddressEqual(cfg.token, r.asset as Address))
    return {
      reason: reasons.batchTokenMismatch,
      message: `the channel's token ${cfg.token} is not the asset ${r.asset}`,
    }
  // Always: an offer naming no authorizer would let the buyer name itself and refund what it spent.
  const ra = r.extra.receiverAuthorizer
  if (typeof ra !== 'string' || !isAddress(ra, { strict: false }))
    return {
      reason: reasons.invalidPaymentRequirements,
      message: 'a batch-settlement offer must name extra.receiverAuthorizer',
    }
  if (!isAddressEqual(cfg.receiverAuthorizer, ra as Address))
    return {
      reason: reasons.batchReceiverAuthorizerMismatch,
      message: `the channel's receiver authorizer is not ${ra}`,
    }
  if (r.extra.withdrawDelay !== undefined && Number(r.extra.withdrawDelay) !== cfg.withdrawDelay)
    return {
      reason: reasons.batchWithdrawDelayMismatch,
      message: `the channel's withdraw delay is not the ${String(r.extra.withdrawDelay)} s asked`,
    }
  return {
    type: payload.type as ChannelPayment['type'],
    config: cfg,
    channelId: id,
    maxClaimableAmount: max,
    signature: sig,
    chainId,
    raw: payload,
  }
}
