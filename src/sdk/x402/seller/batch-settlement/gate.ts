import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { runGuards, runObservers } from '../../hooks.js'
import { reasons } from '../../reasons.js'
import type { PaymentRequirements, SettleResponse, VerifyResponse } from '../../types.js'
import { encodeHeader, headers, isRecord } from '../../wire.js'
import type { SellerFacilitator } from '../facilitator-client.js'
import type { hookLists, SellerHookContext } from '../hooks.js'
import type { Offer } from '../offers.js'
import { bufferResponse } from '../response-buffer.js'
import { takeSettlementAmount } from '../usage.js'
import { type ChannelPayment, readChannelPayment } from './payload.js'
import type { ChannelMirror, ChannelRecord, ChannelStore } from './store.js'
import { verifyVoucherLocally } from './verify.js'

export type ChannelGateParameters = {
  req: IncomingMessage
  res: ServerResponse
  payment: Record<string, unknown>
  requirements: PaymentRequirements
  offers: Offer[]
  decimals?: number
  facilitator: SellerFacilitator
  store: ChannelStore
  /** How long a mirrored on-chain state allows local voucher checks (ms). */
  ttlMs: number
  tag: string | null
  hooks: ReturnType<typeof hookLists>
  ctx: SellerHookContext
  onHookError: (err: unknown) => void
  /** Answers 402 with these offers and this error. */
  paymentRequired: (offers: Offer[], error: string) => void
  /** Runs the route's handler. */
  next: () => Promise<unknown>
}

/** The reservation a request holds at most this long (the reference's bounds): a crashed replica's hold expires. */
const pendingTtl = (maxTimeoutSeconds: number) => Math.min(600_000, Math.max(5_000, maxTimeoutSeconds * 1000))

/**
 * A batch-settlement payment for one request (the scheme's server side, as the reference's
 * `@x402/evm/batch-settlement/server` does it, with the state in a shared ChannelStore):
 * the voucher must sign what was charged so far plus the price (else the corrective 402 carries
 * the channel's state and the last voucher, from which the official client resyncs); it is
 * checked locally when the mirror is fresh, else by the facilitator; the channel is reserved,
 * the handler runs with its answer held, and only a handler that succeeded is charged: a deposit
 * is settled (sent on chain) then, a voucher is committed in the store with no transaction. A
 * refund payload is completed with the seller's claim and sent to the facilitator; no handler.
 */
export async function serveChannelPayment(g: ChannelGateParameters): Promise<void> {
  const r = g.requirements
  const p = readChannelPayment(g.payment.payload, r)
  if ('reason' in p) return g.paymentRequired(g.offers, p.reason)
  const now = Date.now()
  const current = await g.store.get(p.channelId)
  const price = BigInt(r.amount)
  const paid = p.type !== 'refund'
  const signed = p.maxClaimableAmount
  const charged = current
    ? BigInt(current.chargedCumulativeAmount)
    : paid
      ? signed > price
        ? signed - price
        : 0n
      : signed
  if (signed !== (paid ? charged + price : charged))
    return corrective(g, current ?? provisional(p, r, charged, now, g.tag))

  const before = await runGuards(g.hooks.beforeVerify, g.ctx, reasons.unexpectedVerifyError)
  if (before) return g.paymentRequired(g.offers, before.reason)
  let mirror: ChannelMirror | undefined
  let verdict: VerifyResponse
  const local =
    p.type === 'voucher' ? await verifyVoucherLocally({ ...p, channel: current, ttlMs: g.ttlMs, now }) : undefined
  if (local) {
    verdict = local.isValid
      ? { isValid: true, payer: p.config.payer }
      : {
          isValid: false,
          invalidReason: local.invalidReason,
          invalidMessage: local.invalidMessage,
          payer: p.config.payer,
        }
  } else {
    try {
      verdict = await g.facilitator.verify({ x402Version: 2, paymentPayload: g.payment, paymentRequirements: r })
    } catch {
      return g.paymentRequired(g.offers, reasons.batchVerificationStateUnavailable)
    }
    if (verdict.isValid) mirror = mirrorOf(verdict.extra, now)
  }
  if (!verdict.isValid) return g.paymentRequired(g.offers, verdict.invalidReason ?? reasons.batchVoucherPayload)
  const after = await runGuards(g.hooks.afterVerify, { ...g.ctx, result: verdict }, reasons.unexpectedVerifyError)
  if (after) return g.paymentRequired(g.offers, after.reason)

  const pendingId = randomUUID()
  const record: ChannelRecord = {
    ...provisional(p, r, charged, now, g.tag),
    ...(current ? pick(current) : {}),
    ...(mirror ?? {}),
    pendingId,
    pendingExpiresAt: now + pendingTtl(r.maxTimeoutSeconds),
  }
  const held = await g.store.reserve({ record, expectedCharged: charged.toString(), mirror, now })
  if (held.status === 'busy') return g.paymentRequired(g.offers, reasons.batchChannelBusy)
  if (held.status === 'stale') return corrective(g, held.current)
  const release = () => g.store.release(p.channelId, pendingId, { drop: held.created })
  const state = { ...record, ...(mirror ?? {}) }
  if (p.type === 'refund') return refund(g, p, state, pendingId, release)

  const out = bufferResponse(g.res)
  try {
    await g.next()
  } catch (e) {
    out.release()
    await release()
    throw e
  }
  const status = await out.ended
  const used = takeSettlementAmount(g.res, r.amount, g.decimals)
  if (status >= 400) {
    await release()
    return out.release()
  }
  const refuse = async (error: string, settled?: SettleResponse) => {
    out.discard()
    await release()
    if (settled) g.res.setHeader(headers.response, encodeHeader(settled))
    return g.paymentRequired(g.offers, error)
  }
  if (typeof used !== 'string') return refuse(`invalid_settlement_amount: ${used.invalid}`)
  if (BigInt(used) > price) return refuse(reasons.batchChargeExceedsSignedCumulative)
  const refused = await runGuards(g.hooks.beforeSettle, g.ctx, reasons.unexpectedSettleError)
  if (refused) return refuse(refused.reason)

  const newCharged = (charged + BigInt(used)).toString()
  let result: SettleResponse
  let synced: ChannelMirror | undefined
  if (p.type === 'deposit') {
    // The deposit is the one transaction of a channel's life, sent only for a handler that succeeded.
    result = await g.facilitator.settle({ x402Version: 2, paymentPayload: g.payment, paymentRequirements: r }).catch(
      (e: Error): SettleResponse => ({
        success: false,
        errorReason: reasons.unexpectedSettleError,
        errorMessage: e.message,
        transaction: '',
        network: r.network,
      }),
    )
    if (!result.success) {
      await runObservers(g.hooks.afterSettle, { ...g.ctx, result }, g.onHookError)
      return refuse(result.errorReason ?? 'settlement failed', result)
    }
    synced = mirrorOf(isRecord(result.extra) ? result.extra.channelState : undefined, Date.now())
  }
  const committed = await g.store.commit(p.channelId, pendingId, {
    chargedCumulativeAmount: newCharged,
    signedMaxClaimable: signed.toString(),
    signature: p.signature,
    lastRequestAt: Date.now(),
    ...(synced ?? {}),
  })
  // Our hold expired and another request took the channel: this answer is not paid for (a deposit, if any, stays the
  // buyer's).
  if (!committed) return refuse(reasons.batchChannelBusy)
  const view = { ...state, ...(synced ?? {}) }
  const channelState = {
    channelId: p.channelId,
    balance: view.balance,
    totalClaimed: view.totalClaimed,
    withdrawRequestedAt: view.withdrawRequestedAt,
    refundNonce: view.refundNonce,
    chargedCumulativeAmount: newCharged,
  }
  result =
    p.type === 'deposit'
      ? { ...result!, extra: { ...result!.extra, channelState, chargedAmount: used } }
      : {
          success: true,
          payer: p.config.payer.toLowerCase(),
          transaction: '',
          network: r.network,
          amount: '',
          extra: { channelState, chargedAmount: used },
        }
  await runObservers(g.hooks.afterSettle, { ...g.ctx, result }, g.onHookError)
  g.res.setHeader(headers.response, encodeHeader(result))
  g.res.setHeader('Cache-Control', 'private')
  out.release()
}

/**
 * A cooperative refund the buyer asked for: the seller adds its outstanding claim (so what was
 * charged is claimed, never refunded) and the refund nonce it mirrored; the facilitator signs as
 * the receiver authorizer the channel delegates to and sends both in one transaction.
 */
async function refund(
  g: ChannelGateParameters,
  p: ChannelPayment,
  state: ChannelRecord,
  pendingId: string,
  release: () => Promise<void>,
): Promise<void> {
  const r = g.requirements
  const claims = [
    {
      voucher: { channel: p.config, maxClaimableAmount: p.maxClaimableAmount.toString() },
      signature: p.signature,
      totalClaimed: state.chargedCumulativeAmount,
    },
  ]
  const payload = { ...p.raw, refundNonce: state.refundNonce, claims }
  const result = await g.facilitator
    .settle({ x402Version: 2, paymentPayload: { ...g.payment, payload }, paymentRequirements: r })
    .catch(
      (e: Error): SettleResponse => ({
        success: false,
        errorReason: reasons.unexpectedSettleError,
        errorMessage: e.message,
        transaction: '',
        network: r.network,
      }),
    )
  await runObservers(g.hooks.afterSettle, { ...g.ctx, result }, g.onHookError)
  if (!result.success) {
    await release()
    g.res.setHeader(headers.response, encodeHeader(result))
    return g.paymentRequired(g.offers, result.errorReason ?? 'refund failed')
  }
  const after = mirrorOf(isRecord(result.extra) ? result.extra.channelState : undefined, Date.now())
  if (!after || BigInt(after.balance) <= BigInt(state.chargedCumulativeAmount)) await g.store.remove(p.channelId)
  else await g.store.commit(p.channelId, pendingId, { ...after, totalClaimed: after.totalClaimed })
  const extra = {
    ...result.extra,
    channelState: {
      ...(isRecord(result.extra?.channelState) ? result.extra.channelState : {}),
      chargedCumulativeAmount: state.chargedCumulativeAmount,
    },
  }
  g.res.statusCode = 200
  g.res.setHeader(headers.response, encodeHeader({ ...result, extra }))
  g.res.setHeader('Cache-Control', 'private')
  g.res.setHeader('Content-Type', 'application/json')
  g.res.end(JSON.stringify({ message: 'Refund acknowledged', channelId: p.channelId }))
}

/**
 * The 402 for a voucher signed against another charged total than ours (a buyer that lost its
 * state, or raced itself): the batch-settlement offer carries the channel's state and the last
 * voucher we hold, as the reference server's `enrichPaymentRequiredResponse` words it, so the
 * official client checks that voucher's signature and resumes from our total.
 */
function corrective(g: ChannelGateParameters, c: ChannelRecord): void {
  const offers = g.offers.map((o) =>
    o.v2.scheme === g.requirements.scheme && o.v2.network === g.requirements.network
      ? {
          ...o,
          v2: {
            ...o.v2,
            extra: {
              ...o.v2.extra,
              channelState: {
                channelId: c.channelId,
                balance: c.balance,
                totalClaimed: c.totalClaimed,
                withdrawRequestedAt: c.withdrawRequestedAt,
                refundNonce: c.refundNonce,
                chargedCumulativeAmount: c.chargedCumulativeAmount,
              },
              voucherState: { signedMaxClaimable: c.signedMaxClaimable, signature: c.signature },
            },
          },
        }
      : o,
  )
  g.paymentRequired(offers, reasons.batchCumulativeAmountMismatch)
}

/** A record for a channel we hold nothing of yet (state lost, or the first deposit), from the payload itself. */
function provisional(
  p: ChannelPayment,
  r: PaymentRequirements,
  charged: bigint,
  now: number,
  tag: string | null,
): ChannelRecord {
  return {
    channelId: p.channelId,
    network: r.network,
    config: p.config,
    chargedCumulativeAmount: charged.toString(),
    signedMaxClaimable: p.maxClaimableAmount.toString(),
    signature: p.signature,
    balance: '0',
    totalClaimed: '0',
    withdrawRequestedAt: 0,
    refundNonce: '0',
    syncedAt: null,
    lastRequestAt: now,
    pendingId: null,
    pendingExpiresAt: null,
    tag,
  }
}

const pick = (c: ChannelRecord): Partial<ChannelRecord> => ({
  chargedCumulativeAmount: c.chargedCumulativeAmount,
  signedMaxClaimable: c.signedMaxClaimable,
  signature: c.signature,
  balance: c.balance,
  totalClaimed: c.totalClaimed,
  withdrawRequestedAt: c.withdrawRequestedAt,
  refundNonce: c.refundNonce,
  syncedAt: c.syncedAt,
  tag: c.tag ?? null,
})

/** The facilitator's channel snapshot (verify `extra`, settle `extra.channelState`) as our mirror. */
function mirrorOf(v: unknown, at: number): ChannelMirror | undefined {
  if (!isRecord(v) || typeof v.balance !== 'string' || typeof v.totalClaimed !== 'string') return undefined
  return {
    balance: v.balance,
    totalClaimed: v.totalClaimed,
    withdrawRequestedAt: Number(v.withdrawRequestedAt ?? 0),
    refundNonce: String(v.refundNonce ?? '0'),
    syncedAt: at,
  }
}
