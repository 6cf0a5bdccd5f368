import type { Hex, PublicClient } from 'viem'
import { BaseError } from '../../../errors/index.js'
import { channelIdMemo } from '../evm/batch-settlement/channel-id.js'
import { readChannelState } from '../evm/batch-settlement/channel-state.js'
import { baseUnitsOf, chargedBy, isCorrective } from '../evm/batch-settlement/charged.js'
import { BATCH_SETTLEMENT, type ChannelConfig } from '../evm/batch-settlement/contracts.js'
import { signDeposit, signVoucher } from '../evm/batch-settlement/sign.js'
import { channelConfigFor } from '../evm/batch-settlement/terms.js'
import { voucherSignedBy } from '../evm/batch-settlement/voucher-signer.js'
import type { TypedDataSigner } from '../evm/sign.js'
import { evmChainId } from '../evm/typed-data.js'
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '../types.js'
import { isRecord } from '../wire.js'

/**
 * How a buyer funds its channels (`channels` of wrapFetchWithPayment). A seller's offer names the
 * deposit, how long its authorization is valid and how long a withdrawal takes, so each has a
 * bound of the buyer's own (CHANNEL_DEFAULTS) that a hostile offer cannot lift.
 */
export type ChannelOptions = {
  /**
   * A deposit is this many times the price (default 10), at least the seller's `minDeposit` and what the request needs.
   */
  depositMultiplier?: number
  /**
   * The most one deposit may be, in the token's base units (default 5,000,000: 5 USDC, a token of
   * 6 decimals). An offer whose request or `minDeposit` needs more is refused, nothing signed.
   */
  maxDeposit?: bigint
  /**
   * How long a deposit authorization stays valid, in seconds (default 300): the offer's `maxTimeoutSeconds` only when
   * shorter.
   */
  validitySeconds?: number
  /**
   * The longest withdraw delay accepted, in seconds (default 86,400: a day); an offer asking longer is not paid by
   * channel.
   */
  maxWithdrawDelay?: number
}

/** What a wallet reads a channel with: a public client of its chain. */
export type ChannelReader = Pick<PublicClient, 'chain' | 'readContract'>

export const CHANNEL_DEFAULTS = {
  depositMultiplier: 10,
  maxDeposit: 5_000_000n,
  validitySeconds: 300,
  maxWithdrawDelay: 86_400,
} as const

/**
 * One channel as this buyer knows it: what the seller says it charged so far, and what the chain (or our own deposit)
 * says it holds.
 */
export type Channel = {
  id: Hex
  chainId: number
  config: ChannelConfig
  charged: bigint
  balance: bigint
  busy: Promise<unknown>
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
  private readonly options: Required<ChannelOptions>

  /** `clients`: a public client per chain paid on, from which each channel's balance is read before a deposit. */
  constructor(
    private readonly signer: TypedDataSigner,
    options: ChannelOptions = {},
    private readonly clients: ChannelReader[] = [],
  ) {
    this.options = { ...CHANNEL_DEFAULTS, ...options }
  }

  /**
   * Whether this requirement is a channel offer this wallet pays (checked as channelConfigFor checks it, and within
   * this buyer's bounds).
   */
  pays(r: PaymentRequirements): boolean {
    return r.scheme === BATCH_SETTLEMENT && this.refusal(r) === undefined
  }

  /** Why this wallet does not pay this offer (completes "the seller's batch-settlement offer …"), or undefined. */
  private refusal(r: PaymentRequirements): string | undefined {
    const chainId = evmChainId(r.network)
    if (chainId === undefined) return `is on ${r.network}, not an EVM network`
    const terms = channelConfigFor(r, this.signer.address)
    if ('refused' in terms) return terms.refused
    const max = this.options.maxWithdrawDelay
    // A delay is how long a deposit stays locked once the buyer asks for it back without the seller.
    if (terms.config.withdrawDelay > max)
      return `has a withdrawDelay of ${terms.config.withdrawDelay} s, above this buyer's maxWithdrawDelay of ${max} s`
    if (terms.minDeposit !== undefined && terms.minDeposit > this.options.maxDeposit)
      return (
        `asks a minDeposit of ${terms.minDeposit} base units, ` +
        `above this buyer's maxDeposit of ${this.options.maxDeposit}`
      )
    if (!this.clientFor(chainId))
      return `is on chain ${chainId}, for which this buyer has no public client to read the channel's balance from`
    return undefined
  }

  private clientFor(chainId: number) {
    return this.clients.find((c) => c.chain?.id === chainId)
  }

  /** The channel for this offer (CHANNEL_TERMS_REFUSED naming why, for an offer `pays` refuses). */
  channelFor(r: PaymentRequirements): Channel {
    const refused = this.refusal(r)
    const terms = channelConfigFor(r, this.signer.address)
    const chainId = evmChainId(r.network)
    if (refused !== undefined || 'refused' in terms || chainId === undefined)
      throw new BaseError('CHANNEL_TERMS_REFUSED', `the seller's batch-settlement offer ${refused}; nothing was paid`)
    const id = channelIdMemo(terms.config, chainId).toLowerCase() as Hex
    let ch = this.channels.get(id)
    if (!ch)
      this.channels.set(
        id,
        (ch = { id, chainId, config: terms.config, charged: 0n, balance: 0n, busy: Promise.resolve() }),
      )
    return ch
  }

  /** Runs `f` once every earlier request on this channel finished. */
  exclusive<T>(ch: Channel, f: () => Promise<T>): Promise<T> {
    const run = ch.busy.then(f, f)
    ch.busy = run.catch(() => {})
    return run
  }

  /**
   * The payload for one request at this offer's price: a voucher for the new total, with a deposit
   * first when the channel lacks it. Before a deposit the channel's balance and claimed total are
   * read on chain, so a seller under-reporting the balance gets no second deposit, and one
   * over-reporting it no voucher beyond what the chain holds.
   */
  async payload(ch: Channel, r: PaymentRequirements): Promise<{ payload: Record<string, unknown>; deposit?: bigint }> {
    const price = BigInt(r.amount)
    let cumulative = ch.charged + price
    if (cumulative > ch.balance) {
      const client = this.clientFor(ch.chainId)
      if (!client)
        throw new BaseError(
          'CHANNEL_TERMS_REFUSED',
          `no public client for chain ${ch.chainId} to read channel ${ch.id} from; nothing was paid`,
        )
      const onChain = await readChannelState(client, ch.id).catch((e: unknown) => {
        throw new BaseError(
          'CHAIN_UNAVAILABLE',
          `chain ${ch.chainId} did not answer for channel ${ch.id}; nothing was paid`,
          { cause: e },
        )
      })
      ch.balance = onChain.balance
      // What the receiver claimed was charged, whatever this process remembers.
      if (onChain.totalClaimed > ch.charged) ch.charged = onChain.totalClaimed
      cumulative = ch.charged + price
    }
    if (cumulative <= ch.balance) {
      return {
        payload: {
          type: 'voucher',
          channelConfig: ch.config,
          voucher: await signVoucher(this.signer, ch.chainId, ch.id, cumulative),
        },
      }
    }
    const extra = isRecord(r.extra) ? r.extra : {}
    if (typeof extra.name !== 'string' || typeof extra.version !== 'string')
      throw new BaseError(
        'CHANNEL_TERMS_REFUSED',
        `the seller's batch-settlement offer lacks extra.name and ` +
          `extra.version (the token's EIP-712 domain); nothing was paid`,
      )
    const needed = cumulative - ch.balance
    const min = baseUnitsOf(extra.minDeposit) ?? 0n
    const cap = this.options.maxDeposit
    if (needed > cap || min > cap)
      throw new BaseError(
        'CHANNEL_TERMS_REFUSED',
        `the seller's batch-settlement offer needs a deposit of ${needed > min ? needed : min} ` +
          `base units, above this buyer's maxDeposit of ${cap}; nothing was paid`,
      )
    let amount = price * BigInt(this.options.depositMultiplier)
    if (amount < min) amount = min
    if (amount < needed) amount = needed
    if (amount > cap) amount = cap
    const token = { address: ch.config.token, name: extra.name, version: extra.version }
    // Clamped like every signature: a seller asking a year gets this buyer's validity.
    const offered = r.maxTimeoutSeconds > 0 ? r.maxTimeoutSeconds : 60
    const validSeconds = Math.min(offered, this.options.validitySeconds)
    const signed = await signDeposit({
      signer: this.signer,
      chainId: ch.chainId,
      token,
      config: ch.config,
      channelId: ch.id,
      amount,
      cumulative,
      validSeconds,
    })
    return { payload: signed.payload, deposit: amount }
  }

  /**
   * Takes in the seller's answer to a paid request: a settlement it reports as done counts the
   * charge (and the deposit, if one was sent). False when the seller did not take the payment.
   */
  settled(
    ch: Channel,
    r: PaymentRequirements,
    settle: SettleResponse | undefined,
    status: number,
    deposit?: bigint,
  ): boolean {
    if (!settle?.success || status >= 400) return false
    ch.charged += chargedBy(settle, ch.charged, BigInt(r.amount))
    // Our own deposit, never the seller's reported balance: the chain is read again before the next one.
    if (deposit) ch.balance += deposit
    return true
  }

  /**
   * A corrective 402 (our total is not the seller's): resumes from the seller's record, but takes
   * a total above ours only with our own voucher for at least that much, so a seller cannot make
   * us sign for what it never served. True when the next voucher can be signed from it.
   */
  resync(ch: Channel, required: PaymentRequired | undefined): boolean {
    if (!required || !isCorrective(required.error) || !Array.isArray(required.accepts)) return false
    for (const a of required.accepts) {
      const extra = isRecord(a?.extra) ? a.extra : {}
      const state = isRecord(extra.channelState) ? extra.channelState : {}
      if (typeof state.channelId !== 'string' || state.channelId.toLowerCase() !== ch.id) continue
      const charged = baseUnitsOf(state.chargedCumulativeAmount)
      if (charged === undefined) return false
      if (charged > ch.charged) {
        const v = isRecord(extra.voucherState) ? extra.voucherState : {}
        const signed = baseUnitsOf(v.signedMaxClaimable)
        if (signed === undefined || signed < charged || typeof v.signature !== 'string') return false
        if (!voucherSignedBy(this.signer.address, ch.chainId, ch.id, signed, v.signature as Hex)) return false
      }
      // The seller's balance is not taken: a deposit is decided from the chain (payload).
      ch.charged = charged
      return true
    }
    return false
  }
}
