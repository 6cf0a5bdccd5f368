import { type Address, getAddress, type Hex, isAddress, zeroAddress } from 'viem'
import type { PaymentRequirements } from '../../types.js'
import { isRecord } from '../../wire.js'
import { BATCH_SETTLEMENT_ADDRESS, type ChannelConfig, MAX_WITHDRAW_DELAY, MIN_WITHDRAW_DELAY } from './contracts.js'

/** A buyer's channels are keyed by config alone: one per (payer, receiver, authorizer, token, delay) on a network. */
export const CHANNEL_SALT: Hex = `0x${'0'.repeat(64)}`

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * The channel a buyer deposits into for this batch-settlement offer, or why it must not: an offer
 * decides where a deposit goes, so every part that could send it elsewhere is checked against what
 * the scheme fixes: a contract or verifying address other than the canonical one, a transfer
 * method other than eip3009 (the one both parx buyers sign), no or a zero receiver authorizer, a
 * receiver that is no address, a withdraw delay outside the contract's bounds. `refused` completes
 * "the seller's batch-settlement offer …".
 */
export function channelConfigFor(
  r: PaymentRequirements,
  payer: Address,
): { config: ChannelConfig; price: bigint; minDeposit?: bigint } | { refused: string } {
  const extra = isRecord(r.extra) ? r.extra : {}
  for (const k of ['verifyingContract', 'contract', 'batchSettlement', 'settlementContract'] as const) {
    const v = extra[k]
    if (v !== undefined && (typeof v !== 'string' || !same(v, BATCH_SETTLEMENT_ADDRESS))) {
      return { refused: `names ${String(v)} as its ${k}; the scheme's contract is ${BATCH_SETTLEMENT_ADDRESS}` }
    }
  }
  const method = extra.assetTransferMethod ?? 'eip3009'
  if (method !== 'eip3009') return { refused: `asks for deposits by ${String(method)}; parx deposits by eip3009` }
  const authorizer = extra.receiverAuthorizer
  if (typeof authorizer !== 'string' || !isAddress(authorizer) || same(authorizer, zeroAddress))
    return { refused: 'has no non-zero receiverAuthorizer' }
  if (typeof r.payTo !== 'string' || !isAddress(r.payTo) || same(r.payTo, zeroAddress))
    return { refused: `pays to ${String(r.payTo)}, which is not an address` }
  if (typeof r.asset !== 'string' || !isAddress(r.asset))
    return { refused: `names ${String(r.asset)} as its token, which is not an address` }
  if (typeof r.amount !== 'string' || !/^\d{1,39}$/.test(r.amount))
    return { refused: `asks ${String(r.amount)}, which is not an amount in base units` }
  const delay = extra.withdrawDelay ?? MIN_WITHDRAW_DELAY
  if (
    typeof delay !== 'number' ||
    !Number.isInteger(delay) ||
    delay < MIN_WITHDRAW_DELAY ||
    delay > MAX_WITHDRAW_DELAY
  ) {
    return {
      refused:
        `has a withdrawDelay of ${String(delay)}; the contract ` +
        `takes ${MIN_WITHDRAW_DELAY} to ${MAX_WITHDRAW_DELAY} seconds`,
    }
  }
  const config: ChannelConfig = {
    payer,
    payerAuthorizer: payer,
    receiver: getAddress(r.payTo),
    receiverAuthorizer: getAddress(authorizer as string),
    token: getAddress(r.asset),
    withdrawDelay: delay as number,
    salt: CHANNEL_SALT,
  }
  const min =
    typeof extra.minDeposit === 'string' && /^\d{1,39}$/.test(extra.minDeposit) ? BigInt(extra.minDeposit) : undefined
  return { config, price: BigInt(r.amount), ...(min ? { minDeposit: min } : {}) }
}
