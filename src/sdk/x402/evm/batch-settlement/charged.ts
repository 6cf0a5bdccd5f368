import { reasons } from '../../reasons.js'
import type { SettleResponse } from '../../types.js'
import { isRecord } from '../../wire.js'

/**
 * An amount in base units as the scheme's messages spell it (a string of at most 39 digits, a
 * uint128 at most), else undefined: a seller's answer is read, never trusted to be well formed.
 */
export const baseUnitsOf = (v: unknown): bigint | undefined =>
  typeof v === 'string' && /^\d{1,39}$/.test(v) ? BigInt(v) : undefined

/**
 * What one paid request cost, by the seller's settlement answer: its
 * `channelState.chargedCumulativeAmount` less what was charged before, else its `chargedAmount`,
 * else the price; never more than the price (the voucher allowed no more) and never below zero.
 * Both buyers count a charge with it: the SDK's ChannelWallet and the platform paying for an agent.
 *
 * @example
 * const delta = chargedBy(settle, channel.charged, BigInt(requirement.amount))
 */
export function chargedBy(settle: SettleResponse, chargedBefore: bigint, price: bigint): bigint {
  const extra = isRecord(settle.extra) ? settle.extra : {}
  const state = isRecord(extra.channelState) ? extra.channelState : {}
  let delta = price
  const cumulative = baseUnitsOf(state.chargedCumulativeAmount)
  const charged = baseUnitsOf(extra.chargedAmount)
  if (cumulative !== undefined) delta = cumulative - chargedBefore
  else if (charged !== undefined) delta = charged
  return delta < 0n ? 0n : delta > price ? price : delta
}

/**
 * The seller's refusals that say the buyer's cumulative drifted from its record: a buyer resyncs on them rather than
 * give up.
 */
const CORRECTIVE = new Set<string>([reasons.batchCumulativeAmountMismatch, reasons.batchCumulativeBelowClaimed])

/** Whether a 402's `error` is a corrective one (see CORRECTIVE). */
export const isCorrective = (reason: unknown): reason is string => typeof reason === 'string' && CORRECTIVE.has(reason)
