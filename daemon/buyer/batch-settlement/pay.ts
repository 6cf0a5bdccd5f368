import { type Hex, recoverTypedDataAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import type { PayAnswer, Price } from '../../../src/sdk/platform/pay.js'
import { voucherTransaction } from '../../../src/sdk/platform/receipt-typed-data.js'
import { fromBaseUnits, toBaseUnits } from '../../../src/sdk/units.js'
import { readChannelState } from '../../../src/sdk/x402/evm/batch-settlement/channel-state.js'
import { baseUnitsOf, chargedBy, isCorrective } from '../../../src/sdk/x402/evm/batch-settlement/charged.js'
import { BATCH_SETTLEMENT, voucherTypedData } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { signDeposit, signVoucher } from '../../../src/sdk/x402/evm/batch-settlement/sign.js'
import type { PaymentRequired, SettleResponse } from '../../../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader, isRecord, headers as x402Headers } from '../../../src/sdk/x402/wire.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import type { AgentRow } from '../../platform/store.js'
import { roomMicros } from '../budgets.js'
import { USD_DECIMALS, usdMicros } from '../limits.js'
import { decodeProof, hasExpired, type PaymentProof, usedIn, wasUsed } from '../pay/proof.js'
import { isTxHash } from '../pay/quote.js'
import { MAX_TERMS_BODY, passThrough, readBounded } from '../pay/seller-body.js'
import type { ReceiptIssuer } from '../receipts/issue.js'
import type { SpendsLedger } from '../spends.js'
import type { ChannelRow, ChannelStore, SpendWithChannel as SpendRow } from './store.js'
import { type ChannelTerms, depositAmount } from './terms.js'

/**
 * Channel deposits (config `pay.channels`): `multiplier` x the price, at most `cap` token units open
 * in one channel; a seller asking a withdraw delay above `maxWithdrawDelay` seconds is refused.
 */
export type ChannelSettings = { depositMultiplier: number; depositCap: string; maxWithdrawDelay: number }
export const CHANNEL_DEFAULTS: ChannelSettings = { depositMultiplier: 10, depositCap: '5', maxWithdrawDelay: 86_400 }

export type ChannelPayContext = {
  chain: EvmChain
  spends: SpendsLedger
  channels: ChannelStore
  settings: ChannelSettings
  agent: AgentRow
  signer: PrivateKeyAccount
  url: string
  host: string
  terms: ChannelTerms
  /** The 402's `resource`, sent back in the payment as the official client does. */
  resource: unknown
  validSeconds: number
  timeoutMs: number
  /** One request to the seller with these extra headers (the guarded egress fetch). */
  send(headers: Record<string, string>): Promise<Response>
  /** Signs and stores each charged voucher's receipt (daemon/buyer/receipts/). */
  receipts?: ReceiptIssuer
}

const n = (s: string | null | undefined) => BigInt(s ?? '0')

/**
 * Pays a seller through the agent's batch-settlement channel to it: a deposit (with the first
 * voucher) when the channel holds too little, a voucher alone (no transaction) otherwise. The
 * channel is held for the whole request across replicas (a lease on its row), and its new signed
 * cumulative is written before the seller sees the signature, so neither a crash nor a second
 * replica ever signs from a stale state. The deposit is a spend reserved like a payment (counted
 * until refunded); each voucher is a spend of the price checked against the per-payment and daily
 * limits and, once answered, counted at what the seller says it charged (never more than the price).
 */
export async function payWithChannel(x: ChannelPayContext): Promise<PayAnswer> {
  const { terms, channels } = x
  const id = terms.channelId
  await channels.ensure({
    id,
    agent_id: x.agent.id,
    network: x.agent.network,
    token: terms.token.symbol,
    config: JSON.stringify(terms.config),
    receiver: terms.config.receiver,
    receiver_authorizer: terms.config.receiverAuthorizer,
    url: x.url,
    host: x.host,
  })
  const lease = await channels.lease(id, 2 * x.timeoutMs + 10_000, x.timeoutMs)
  try {
    const held = (await channels.get(id))!
    // A withdrawal under way takes the escrow back: a voucher signed now could not be paid from it.
    if (held.withdraw_requested_at != null) {
      const at = new Date(Number(held.withdraw_finalizable_at)).toISOString()
      throw new BaseError(
        'CHANNEL_WITHDRAW_PENDING',
        `channel ${id} to this seller is being withdrawn (finalizable from ${at}); ` +
          `nothing was paid: finalize it with parx channels withdraw ${id}, then pay again`,
        { fields: { charged: false, transaction: null, finalizableAt: at } },
      )
    }
    let row = await settlePending(x, held)
    if (row.url !== x.url) await channels.update(id, { url: x.url, host: x.host })
    for (let attempt = 0; ; attempt++) {
      const out = await payOnce(x, row)
      if (!('corrective' in out)) return out
      if (attempt > 0)
        throw new BaseError(
          'PAYMENT_REFUSED',
          `the seller refused the channel voucher twice (${out.reason}); nothing more was charged`,
          { fields: { charged: false, transaction: null } },
        )
      // A deposit signed in the refused attempt and not on chain yet must not be followed by a second one.
      row = await settlePending(x, await resync(x, row, out.required))
    }
  } finally {
    await lease.release().catch(() => {})
  }
}

type Once = PayAnswer | { corrective: true; reason: string; required: PaymentRequired }

async function payOnce(x: ChannelPayContext, row: ChannelRow): Promise<Once> {
  const { terms, channels, chain } = x
  const dec = terms.token.decimals
  const charged = n(row.charged)
  let balance = n(row.deposited) - n(row.refunded) - n(row.withdrawn)
  const cumulative = charged + terms.price
  const price: Price = {
    protocol: 'x402-v2',
    amount: fromBaseUnits(terms.price, dec),
    token: terms.token.symbol,
    network: x.agent.network,
    payTo: terms.config.receiver,
  }
  const spend = {
    agentId: x.agent.id,
    channelId: terms.channelId,
    token: terms.token.symbol,
    recipient: terms.config.receiver,
    host: x.host,
  }

  // Short by our own record: the chain says what the channel holds before anything more goes in
  // (a deposit we did not record, a refund the seller made), never the seller's report of it.
  if (cumulative > balance) {
    const onChain = await channelOnChain(x, row.id)
    if (onChain.balance > balance) {
      await channels.update(row.id, { deposited: (onChain.balance + n(row.refunded) + n(row.withdrawn)).toString() })
    }
    balance = onChain.balance
  }
  let deposit: { amount: bigint; spend: SpendRow } | undefined
  if (cumulative > balance) {
    const open = balance > charged ? balance - charged : 0n
    const cap = toBaseUnits(x.settings.depositCap, dec) - open
    // The least any window (agent or user) still allows: a deposit counts in all of them.
    const left = roomMicros(await x.spends.budget(x.agent.id))
    const room =
      left === null
        ? null
        : dec >= USD_DECIMALS
          ? left * 10n ** BigInt(dec - USD_DECIMALS)
          : left / 10n ** BigInt(USD_DECIMALS - dec)
    const amount = depositAmount({
      needed: cumulative - balance,
      price: terms.price,
      multiplier: x.settings.depositMultiplier,
      cap: cap > 0n ? cap : 0n,
      minDeposit: terms.minDeposit,
      room,
    })
    const a = fromBaseUnits(amount, dec)
    deposit = { amount, spend: await channels.reserveDeposit({ ...spend, amountMicros: usdMicros(a, dec), amount: a }) }
  }
  let voucher: SpendRow
  try {
    voucher = await channels.reserveVoucher({
      ...spend,
      amountMicros: usdMicros(price.amount, dec),
      amount: price.amount,
    })
  } catch (e) {
    if (deposit) await x.spends.release(deposit.spend.id, (e as Error).message)
    throw e
  }

  let payload: Record<string, unknown>
  let proof: PaymentProof | undefined
  if (deposit) {
    const token = { address: terms.token.address, ...terms.token.permitDomain! }
    const signed = await signDeposit({
      signer: x.signer,
      chainId: chain.chainId,
      token,
      config: terms.config,
      channelId: terms.channelId,
      amount: deposit.amount,
      cumulative,
      validSeconds: x.validSeconds,
    })
    payload = signed.payload
    proof = {
      kind: 'eip3009',
      token: terms.token.address,
      from: x.signer.address,
      nonce: signed.nonce,
      validBefore: signed.validBefore,
    }
    // Written before the seller sees anything: from here the chain decides whether the deposit happened.
    await x.spends.signed(deposit.spend.id, proof)
  } else {
    payload = {
      type: 'voucher',
      channelConfig: terms.config,
      voucher: await signVoucher(x.signer, chain.chainId, terms.channelId, cumulative),
    }
  }
  await channels.update(terms.channelId, {
    signed: (cumulative > n(row.signed) ? cumulative : n(row.signed)).toString(),
    ...(deposit ? { pending_deposit: deposit.amount.toString(), pending_spend: deposit.spend.id } : {}),
  })

  const message = {
    x402Version: 2,
    accepted: terms.requirement,
    payload,
    ...(x.resource ? { resource: x.resource } : {}),
  }
  let paid: Response
  try {
    paid = await x.send({ [x402Headers.signature]: encodeHeader(message) })
  } catch (e) {
    await channels.releaseVoucher(voucher, (e as Error).message)
    const d = deposit ? await decideDeposit(x, deposit, proof!, (e as Error).message) : undefined
    if (e instanceof BaseError && e.code === 'EGRESS_REFUSED') throw e
    throw new BaseError('SELLER_FAILED', `${(e as Error).message}; ${d?.message ?? 'the voucher charged nothing'}`, {
      fields: d?.fields ?? { charged: false, transaction: null },
    })
  }
  const settle = decodeHeader<SettleResponse>(paid.headers.get(x402Headers.response))
  if (settle?.success && paid.status < 400) {
    let tx: Hex | null = null
    if (deposit) {
      tx = isTxHash(settle.transaction) ? settle.transaction : null
      await x.spends.confirm(deposit.spend.id, { tx })
      await channels.update(terms.channelId, {
        deposited: (n(row.deposited) + deposit.amount).toString(),
        pending_deposit: null,
        pending_spend: null,
      })
    }
    const delta = chargedBy(settle, charged, terms.price)
    const amount = fromBaseUnits(delta, terms.token.decimals)
    await channels.settleVoucher(voucher, usdMicros(amount, terms.token.decimals), amount)
    await channels.update(terms.channelId, { charged: (charged + delta).toString() })
    // The voucher is what pays here (a deposit only fills the escrow): the receipt names it, at what the seller
    // charged.
    const signed = await x.receipts?.issue({
      paymentId: voucher.id,
      agent: x.agent,
      host: x.host,
      payTo: terms.config.receiver,
      network: chain.spec.caip2,
      token: terms.token,
      amount: delta,
      protocol: price.protocol,
      transaction: voucherTransaction(terms.channelId, cumulative),
      seller: paid,
    })
    return {
      dryRun: false,
      ...(await passThrough(paid)),
      receipt: {
        ...price,
        amount,
        transaction: tx,
        payer: x.signer.address,
        channel: {
          id: terms.channelId,
          cumulative: fromBaseUnits(charged + delta, terms.token.decimals),
          ...(deposit ? { deposited: fromBaseUnits(deposit.amount, terms.token.decimals) } : {}),
        },
        ...(signed ? { signed } : {}),
      },
    }
  }
  // Not charged by the seller's word: the voucher's reservation goes back to the escrow, which still counts it.
  await channels.releaseVoucher(voucher, `seller answered ${paid.status} without a settlement`)
  const required =
    paid.status === 402 ? decodeHeader<PaymentRequired>(paid.headers.get(x402Headers.required)) : undefined
  const d = deposit ? await decideDeposit(x, deposit, proof!, `seller answered ${paid.status}`) : undefined
  if (required && isCorrective(required.error) && Array.isArray(required.accepts)) {
    await paid.body?.cancel().catch(() => {})
    return { corrective: true, reason: required.error, required }
  }
  const why =
    paid.status === 402
      ? `the seller refused the channel payment (${settle?.errorReason ?? required?.error ?? (await refusal(paid))})`
      : `the seller answered ${paid.status} after the payment was offered`
  await paid.body?.cancel().catch(() => {})
  throw new BaseError(
    paid.status === 402 ? 'PAYMENT_REFUSED' : 'SELLER_FAILED',
    `${why}; ${d?.message ?? 'the voucher charged nothing'}`,
    { fields: d?.fields ?? { charged: false, transaction: null } },
  )
}

/**
 * A signed deposit the seller did not confirm: the chain says whether it happened; if not yet, it stays pending (and
 * counted).
 */
async function decideDeposit(
  x: ChannelPayContext,
  deposit: { amount: bigint; spend: SpendRow },
  proof: PaymentProof,
  reason: string,
) {
  const used = await wasUsed(x.chain, proof)
  if (used === true) {
    const tx = await usedIn(x.chain, proof)
    await x.spends.confirm(deposit.spend.id, { tx })
    const row = (await x.channels.get(x.terms.channelId))!
    await x.channels.update(row.id, {
      deposited: (n(row.deposited) + deposit.amount).toString(),
      pending_deposit: null,
      pending_spend: null,
    })
    return {
      message:
        `the deposit of ${fromBaseUnits(deposit.amount, x.terms.token.decimals)} ` +
        `${x.terms.token.symbol} is in the channel${tx ? ` (${tx})` : ''} and refundable`,
      fields: { charged: true, transaction: tx, reservedUntil: null },
    }
  }
  const until = new Date(Number(proof.validBefore) * 1000).toISOString()
  await x.spends.hold(deposit.spend.id, `${reason}; deposit authorization valid until ${until}`)
  return {
    message:
      `the deposit was not made yet: its authorization stays valid until ${until}, so it ` +
      `stays counted against the limits until the chain shows it unused after that time`,
    fields: { charged: false, transaction: null, reservedUntil: until },
  }
}

/**
 * A pending deposit from an earlier request (refused, failed, or a crash): decided from the chain.
 * Used: it is in the channel. Unused and expired: it never will be. Otherwise this channel waits.
 */
async function settlePending(x: ChannelPayContext, row: ChannelRow): Promise<ChannelRow> {
  if (!row.pending_spend) return row
  const spend = await x.channels.spend(row.pending_spend)
  const clear = { pending_deposit: null, pending_spend: null }
  if (spend?.state === 'released') {
    await x.channels.update(row.id, clear)
  } else if (spend?.state === 'confirmed') {
    await x.channels.update(row.id, { ...clear, deposited: (n(row.deposited) + n(row.pending_deposit)).toString() })
  } else {
    const proof = spend?.proof ? decodeProof(spend.proof) : undefined
    if (!spend || !proof) {
      await x.channels.update(row.id, clear)
    } else {
      const expired = await hasExpired(x.chain, proof)
      const used = expired === undefined ? undefined : await wasUsed(x.chain, proof)
      if (used === true) {
        await x.spends.confirm(spend.id, { tx: await usedIn(x.chain, proof) })
        await x.channels.update(row.id, { ...clear, deposited: (n(row.deposited) + n(row.pending_deposit)).toString() })
      } else if (expired === true && used === false) {
        await x.spends.release(spend.id, 'the deposit authorization expired unused')
        await x.channels.update(row.id, clear)
      } else {
        throw new BaseError(
          'SELLER_FAILED',
          `a deposit into channel ${row.id} is still pending until ` +
            `${new Date(Number(proof.validBefore) * 1000).toISOString()}; nothing was paid, retry after that`,
          {
            fields: {
              charged: false,
              transaction: null,
              reservedUntil: new Date(Number(proof.validBefore) * 1000).toISOString(),
            },
          },
        )
      }
    }
  }
  return (await x.channels.get(row.id))!
}

/**
 * The corrective 402 (the official client's `processCorrectivePaymentRequired`): the seller sends
 * its record of the channel, with the last voucher it holds. Taken only when that voucher is ours
 * (recovers to the agent), for no more than we ever signed, and its charged amount is within it and
 * not below what the chain already paid out; else the chain's own state. A charge we had not
 * recorded is counted (drawn from the escrow) before the next voucher.
 */
export async function resync(x: ChannelPayContext, row: ChannelRow, required: PaymentRequired): Promise<ChannelRow> {
  const accept = required.accepts.find((a) => a.scheme === BATCH_SETTLEMENT)
  const extra = isRecord(accept?.extra) ? accept!.extra : {}
  const cs = isRecord(extra.channelState) ? extra.channelState : {}
  const vs = isRecord(extra.voucherState) ? extra.voucherState : {}
  const { balance, totalClaimed } = await channelOnChain(x, row.id)
  let charged = totalClaimed
  const sellerCharged = baseUnitsOf(cs.chargedCumulativeAmount)
  const signedMax = baseUnitsOf(vs.signedMaxClaimable)
  if (sellerCharged !== undefined && signedMax !== undefined && typeof vs.signature === 'string') {
    const signer = await recoverTypedDataAddress({
      ...voucherTypedData(x.chain.chainId, x.terms.channelId, signedMax),
      signature: vs.signature as Hex,
    }).catch(() => undefined)
    if (
      signer?.toLowerCase() !== x.signer.address.toLowerCase() ||
      signedMax > n(row.signed) ||
      sellerCharged > signedMax ||
      sellerCharged < totalClaimed
    ) {
      throw new BaseError(
        'PAYMENT_REFUSED',
        `the seller's record of channel ${row.id} does not match what the agent ` +
          `signed (charged ${sellerCharged}, voucher ${signedMax}); nothing more was paid`,
        { fields: { charged: false, transaction: null } },
      )
    }
    charged = sellerCharged
  }
  const before = n(row.charged)
  if (charged > before) {
    const amount = fromBaseUnits(charged - before, x.terms.token.decimals)
    await x.channels.recordCharge(
      {
        agentId: x.agent.id,
        channelId: row.id,
        token: x.terms.token.symbol,
        recipient: x.terms.config.receiver,
        host: x.host,
        amountMicros: usdMicros(amount, x.terms.token.decimals),
        amount,
      },
      'charged by a voucher the seller held (corrective 402)',
    )
  }
  const deposited = balance + n(row.refunded) > n(row.deposited) ? balance + n(row.refunded) : n(row.deposited)
  await x.channels.update(row.id, { charged: charged.toString(), deposited: deposited.toString() })
  return (await x.channels.get(row.id))!
}

/** The channel's balance and claimed total on chain (CHAIN_UNAVAILABLE when the chain does not answer). */
async function channelOnChain(x: ChannelPayContext, id: string): Promise<{ balance: bigint; totalClaimed: bigint }> {
  try {
    return await readChannelState(x.chain.client, id as Hex)
  } catch (e) {
    throw new BaseError('CHAIN_UNAVAILABLE', `${x.chain.key} did not answer for channel ${id}; nothing more was paid`, {
      cause: e,
    })
  }
}

async function refusal(res: Response): Promise<string> {
  const { buf } = await readBounded(res, MAX_TERMS_BODY)
  try {
    const b = JSON.parse(buf.toString('utf8')) as Record<string, unknown>
    if (typeof b.error === 'string') return b.error
  } catch {}
  return `status ${res.status}`
}
