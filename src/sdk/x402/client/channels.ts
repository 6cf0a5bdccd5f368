import type { Hex } from 'viem'
import { BATCH_SETTLEMENT, type ChannelConfig } from '../evm/batch-settlement/contracts.js'
import { signDeposit, signVoucher } from '../evm/batch-settlement/sign.js'
import { channelConfigFor } from '../evm/batch-settlement/terms.js'
import type { TypedDataSigner } from '../evm/sign.js'
import { evmChainId } from '../evm/typed-data.js'
import { reasons } from '../reasons.js'
import { channelIdMemo } from '../evm/batch-settlement/channel-id.js'
import { voucherSignedBy } from '../evm/batch-settlement/voucher-signer.js'
import type { PaymentRequirements, PaymentRequired, SettleResponse } from '../types.js'
import { isRecord } from '../wire.js'

/** How a buyer funds its channels (`channels` of wrapFetchWithPayment). */
export type ChannelOptions = {
  /** A deposit is this many times the price (default 10), at least the seller's `minDeposit` and what the request needs. */
  depositMultiplier?: number
  /** The most one deposit may be, in the token's base units; an offer that needs more is not paid by channel. */
  maxDeposit?: bigint
}

/** One channel as this buyer knows it: what the seller says it charged so far, and what was deposited. */
export type Channel = { id: Hex; chainId: number; config: ChannelConfig; charged: bigint; balance: bigint; busy: Promise<unknown> }

/** The seller's answers that say our cumulative drifted from its record. */
const CORRECTIVE = new Set<string>([reasons.batchCumulativeAmountMismatch, reasons.batchCumulativeBelowClaimed])

const digits = (v: unknown) => (typeof v === 'string' && /^\d{1,39}$/.test(v) ? BigInt(v) : undefined)

/**
 * What this request cost: the seller's `channelState.chargedCumulativeAmount` less what was
 * charged before, else its `chargedAmount`, else the price; never more than the price (the voucher
 * allowed no more) and never below zero.
 */
export function chargedBy(settle: SettleResponse, chargedBefore: bigint, price: bigint): bigint {
  const extra = isRecord(settle.extra) ? settle.extra : {}
  const state = isRecord(extra.channelState) ? extra.channelState : {}
  let delta = price
  const cumulative = digits(state.chargedCumulativeAmount)
  const charged = digits(extra.chargedAmount)
  if (cumulative !== undefined) delta = cumulative - chargedBefore
  else if (charged !== undefined) delta = charged
  return delta < 0n ? 0n : delta > price ? price : delta
}

/**
 * A buyer's batch-settlement channels, in memory: one per seller offer's config, each paid by a
 * deposit (an ERC-3009 authorization to the deposit collector, with the first voucher) when it
 * holds too little and by a voucher alone (no transaction) otherwise. Requests on one channel are
 * paid one at a time, so no two vouchers are signed from the same total. A new process knows no
 * channel: its first voucher meets the seller's corrective 402, from which it resumes.
 */
export class ChannelWallet {
  private readonly channels = new Map<string, Channel>()

  constructor(private readonly signer: TypedDataSigner, private readonly options: ChannelOptions = {}) {}

  /** Whether this requirement is a channel offer this wallet pays (checked as channelConfigFor checks it). */
  pays(r: PaymentRequirements): boolean {
    return r.scheme === BATCH_SETTLEMENT && evmChainId(r.network) !== undefined && !('refused' in channelConfigFor(r, this.signer.address))
  }

  /** The channel for this offer (an error naming why, for an offer `pays` refuses). */
  channelFor(r: PaymentRequirements): Channel {
    const terms = channelConfigFor(r, this.signer.address)
    const chainId = evmChainId(r.network)
    if ('refused' in terms || chainId === undefined) throw new Error(`the seller's batch-settlement offer ${'refused' in terms ? terms.refused : `is on ${r.network}, not an EVM network`}; nothing was paid`)
    const id = channelIdMemo(terms.config, chainId).toLowerCase() as Hex
    let ch = this.channels.get(id)
    if (!ch) this.channels.set(id, (ch = { id, chainId, config: terms.config, charged: 0n, balance: 0n, busy: Promise.resolve() }))
    return ch
  }

  /** Runs `f` once every earlier request on this channel finished. */
  exclusive<T>(ch: Channel, f: () => Promise<T>): Promise<T> {
    const run = ch.busy.then(f, f)
    ch.busy = run.catch(() => {})
    return run
  }

  /** The payload for one request at this offer's price: a voucher for the new total, with a deposit first when the channel lacks it. */
  async payload(ch: Channel, r: PaymentRequirements): Promise<{ payload: Record<string, unknown>; deposit?: bigint }> {
    const price = BigInt(r.amount)
    const cumulative = ch.charged + price
    if (cumulative <= ch.balance) {
      return { payload: { type: 'voucher', channelConfig: ch.config, voucher: await signVoucher(this.signer, ch.chainId, ch.id, cumulative) } }
    }
    const extra = isRecord(r.extra) ? r.extra : {}
    if (typeof extra.name !== 'string' || typeof extra.version !== 'string') throw new Error(`the seller's batch-settlement offer lacks extra.name and extra.version (the token's EIP-712 domain); nothing was paid`)
    const needed = cumulative - ch.balance
    const min = digits(extra.minDeposit) ?? 0n
    let amount = price * BigInt(this.options.depositMultiplier ?? 10)
    if (amount < min) amount = min
    if (amount < needed) amount = needed
    const cap = this.options.maxDeposit
    if (cap !== undefined && amount > cap) {
      if (needed > cap) throw new Error(`the seller's batch-settlement offer needs a deposit of ${needed} base units, above this buyer's maxDeposit of ${cap}; nothing was paid`)
      amount = cap
    }
    const token = { address: ch.config.token, name: extra.name, version: extra.version }
    const signed = await signDeposit({ signer: this.signer, chainId: ch.chainId, token, config: ch.config, channelId: ch.id, amount, cumulative, validSeconds: r.maxTimeoutSeconds || 60 })
    return { payload: signed.payload, deposit: amount }
  }

  /**
   * Takes in the seller's answer to a paid request: a settlement it reports as done counts the
   * charge (and the deposit, if one was sent). False when the seller did not take the payment.
   */
  settled(ch: Channel, r: PaymentRequirements, settle: SettleResponse | undefined, status: number, deposit?: bigint): boolean {
    if (!settle?.success || status >= 400) return false
    ch.charged += chargedBy(settle, ch.charged, BigInt(r.amount))
    const state = isRecord(settle.extra) && isRecord(settle.extra.channelState) ? settle.extra.channelState : {}
    const balance = digits(state.balance)
    if (balance !== undefined) ch.balance = balance
    else if (deposit) ch.balance += deposit
    return true
  }

  /**
   * A corrective 402 (our total is not the seller's): resumes from the seller's record, but takes
   * a total above ours only with our own voucher for at least that much, so a seller cannot make
   * us sign for what it never served. True when the next voucher can be signed from it.
   */
  resync(ch: Channel, required: PaymentRequired | undefined): boolean {
    if (!required || typeof required.error !== 'string' || !CORRECTIVE.has(required.error) || !Array.isArray(required.accepts)) return false
    for (const a of required.accepts) {
      const extra = isRecord(a?.extra) ? a.extra : {}
      const state = isRecord(extra.channelState) ? extra.channelState : {}
      if (typeof state.channelId !== 'string' || state.channelId.toLowerCase() !== ch.id) continue
      const charged = digits(state.chargedCumulativeAmount)
      if (charged === undefined) return false
      if (charged > ch.charged) {
        const v = isRecord(extra.voucherState) ? extra.voucherState : {}
        const signed = digits(v.signedMaxClaimable)
        if (signed === undefined || signed < charged || typeof v.signature !== 'string') return false
        if (!voucherSignedBy(this.signer.address, ch.chainId, ch.id, signed, v.signature as Hex)) return false
      }
      ch.charged = charged
      ch.balance = digits(state.balance) ?? ch.balance
      return true
    }
    return false
  }
}
