import type { IncomingMessage, ServerResponse } from 'node:http'
import { BaseError } from '../../../../errors/base.js'
import { runGuards, runObservers } from '../../hooks.js'
import { reasons } from '../../reasons.js'
import type { PaymentRequirements, SettleResponse } from '../../types.js'
import { encodeHeader, headers } from '../../wire.js'
import type { SellerFacilitator } from '../facilitator-client.js'
import type { hookLists, SellerHookContext } from '../hooks.js'
import type { Offer } from '../offers.js'
import { bufferResponse } from '../response-buffer.js'
import { takeSettlementAmount } from '../usage.js'
import { captureHold, voidHold } from './lifecycle.js'
import { collectedPayment, paymentInfoWire } from './payment.js'
import type { HoldStore } from './store.js'
import { heldRequirements } from './terms.js'

export type AuthCaptureGateParameters = {
  req: IncomingMessage
  res: ServerResponse
  payment: Record<string, unknown>
  /** Our offer the payment matched (fresh deadlines; the buyer's are taken from `payment.accepted`). */
  offer: PaymentRequirements
  offers: Offer[]
  decimals?: number
  facilitator: SellerFacilitator
  store: HoldStore
  tag: string | null
  hooks: ReturnType<typeof hookLists>
  ctx: SellerHookContext
  onHookError: (err: unknown) => void
  /** Answers 402 with these offers and this error. */
  paymentRequired: (error: string) => void
  /** Runs the route's handler. */
  next: () => Promise<unknown>
  /** Keeps the paid answer for a repeat of the same payment id (../answers/); true when kept. */
  keep?: (answer: ReturnType<ReturnType<typeof bufferResponse>['recorded']>) => Promise<boolean>
}

/**
 * An auth-capture payment for one request (the scheme's `escrow` flow: settle, resource, settle).
 * The hold is recorded before it is asked for and placed (the facilitator's collect settle)
 * BEFORE the handler runs, so what the handler serves is already paid for; then, with the
 * handler's answer held back: a failed handler (status >= 400, or a throw) VOIDS the hold, so the
 * buyer gets everything back; a successful one is CAPTURED, the full price or what the handler
 * reported with `settleAmount` (the rest voided in the same transaction), before the answer goes
 * out with PAYMENT-RESPONSE reporting the capture. captureMode `deferred` keeps the hold in the
 * store for the seller to capture later (./lifecycle.ts). A capture the facilitator refuses is
 * voided and answered 402: the buyer is never charged for an answer it did not get.
 * Returns true when the answer was kept for a repeat of the payment id.
 */
export async function serveAuthCapturePayment(g: AuthCaptureGateParameters): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000)
  const r = heldRequirements(g.offer, g.payment.accepted, now)
  if ('reason' in r) return (g.paymentRequired(r.reason), false)
  const ctx = { ...g.ctx, requirements: r }
  const before = await runGuards(g.hooks.beforeVerify, ctx, reasons.unexpectedVerifyError)
  if (before) return (g.paymentRequired(before.reason), false)
  const body = { x402Version: 2, paymentPayload: g.payment, paymentRequirements: r }
  const v = await g.facilitator
    .verify(body)
    .catch((e: Error) => ({ isValid: false, invalidReason: reasons.unexpectedVerifyError, invalidMessage: e.message }))
  if (!v.isValid) return (g.paymentRequired(v.invalidReason ?? 'payment invalid'), false)
  const after = await runGuards(g.hooks.afterVerify, { ...ctx, result: v }, reasons.unexpectedVerifyError)
  if (after) return (g.paymentRequired(after.reason), false)
  const collected = collectedPayment(r, g.payment.payload)
  if (!collected) return (g.paymentRequired(reasons.acPayloadFormat), false)
  const refused = await runGuards(g.hooks.beforeSettle, ctx, reasons.unexpectedSettleError)
  if (refused) return (g.paymentRequired(refused.reason), false)

  // Recorded before the facilitator is asked, so a crash after the hold landed never forgets it (a sweep voids it).
  const id = collected.id
  const t = Date.now()
  const inserted = await g.store.insert({
    id,
    network: r.network,
    requirements: r,
    paymentInfo: paymentInfoWire(collected.info),
    saltNonce: collected.saltNonce,
    payer: collected.payer,
    payTo: r.payTo,
    maxAmount: r.amount,
    status: 'authorizing',
    captured: '0',
    voided: '0',
    refunded: '0',
    captureDeadline: Number(r.extra.captureDeadline),
    refundDeadline: Number(r.extra.refundDeadline),
    authorizeTransaction: '',
    captureTransaction: '',
    tag: g.tag,
    createdAt: t,
    updatedAt: t,
    version: 0,
  })
  if (!inserted) return (g.paymentRequired(reasons.duplicateSettlement), false)
  const authorized = await settleOnce(g.facilitator, body)
  const record = (await g.store.get(id))!
  if (!authorized.success) {
    await runObservers(g.hooks.afterSettle, { ...ctx, result: authorized }, g.onHookError)
    // Pending: the hold may still land, so the record stays `authorizing` for the sweep to decide.
    if (authorized.errorReason !== reasons.settlementPending)
      await g.store.update(id, record.version, { status: 'failed', updatedAt: Date.now() })
    g.res.setHeader(headers.response, encodeHeader(authorized))
    return (g.paymentRequired(authorized.errorReason ?? 'authorize failed'), false)
  }
  await g.store.update(id, record.version, {
    status: 'held',
    authorizeTransaction: authorized.transaction,
    updatedAt: Date.now(),
  })
  // Every settle of the payment is observed (hold, capture, void): the platform's webhooks report each.
  const observe = (result: SettleResponse) => runObservers(g.hooks.afterSettle, { ...ctx, result }, g.onHookError)
  await observe(authorized)
  const lifecycle = { facilitator: g.facilitator, store: g.store, observe }
  const report = (s: SettleResponse): SettleResponse => ({
    ...s,
    extra: { ...s.extra, authorizeTransaction: authorized.transaction, paymentInfoHash: id },
  })

  const out = bufferResponse(g.res)
  try {
    await g.next()
  } catch (e) {
    out.release()
    await voidOrWarn(lifecycle, id, g.onHookError)
    throw e
  }
  const status = await out.ended
  const used = takeSettlementAmount(g.res, r.amount, g.decimals)
  if (status >= 400) {
    const voided = await voidOrWarn(lifecycle, id, g.onHookError)
    if (voided?.success) g.res.setHeader(headers.response, encodeHeader(report(voided)))
    out.release()
    return false
  }
  const refuse = async (error: string, settled?: SettleResponse) => {
    out.discard()
    const voided = await voidOrWarn(lifecycle, id, g.onHookError)
    g.res.setHeader(headers.response, encodeHeader(report(settled ?? voided ?? authorized)))
    g.paymentRequired(error)
    return false
  }
  if (typeof used !== 'string') return refuse(`invalid_settlement_amount: ${used.invalid}`)
  if (BigInt(used) > BigInt(r.amount)) return refuse(reasons.acAmountMismatch)
  let result: SettleResponse
  if (r.extra.captureMode === 'deferred') result = report(authorized)
  else if (BigInt(used) === 0n) {
    // Served for nothing: the whole hold goes back.
    const voided = await voidHold(lifecycle, id)
    await observe(voided)
    if (!voided.success) return refuse(voided.errorReason ?? 'void failed', voided)
    result = report(voided)
  } else {
    const captured = await captureHold(lifecycle, id, { amount: used, closeOut: true })
    await observe(captured)
    if (!captured.success) return refuse(captured.errorReason ?? 'capture failed', captured)
    result = report(captured)
  }
  g.res.setHeader(headers.response, encodeHeader(result))
  // A paid answer belongs to the one who paid: no shared cache may hand it to another.
  g.res.setHeader('Cache-Control', 'private')
  const kept = g.keep ? await g.keep(out.recorded()) : false
  out.release()
  return kept
}

/**
 * One settle, and once more for `settlement_pending` with a transaction (the facilitator then waits for that one, never
 * sends another).
 */
async function settleOnce(f: SellerFacilitator, body: unknown): Promise<SettleResponse> {
  const once = () =>
    f.settle(body).catch(
      (e: Error): SettleResponse => ({
        success: false,
        errorReason: reasons.unexpectedSettleError,
        errorMessage: e.message,
        transaction: '',
        network: '',
      }),
    )
  const first = await once()
  return !first.success && first.errorReason === reasons.settlementPending && first.transaction ? once() : first
}

/** Voids, reporting (never throwing) a failure: the hold then stays `held` in the store for a sweep to void. */
async function voidOrWarn(
  c: Parameters<typeof voidHold>[0] & { observe(r: SettleResponse): Promise<void> },
  id: `0x${string}`,
  warn: (err: unknown) => void,
): Promise<SettleResponse | undefined> {
  try {
    const v = await voidHold(c, id)
    await c.observe(v)
    if (!v.success)
      warn(
        new BaseError(
          'VOID_REFUSED',
          `auth-capture: the void of ${id} was refused (${v.errorReason}: ` +
            `${v.errorMessage ?? ''}); the hold stays recorded for a later void`,
        ),
      )
    return v
  } catch (e) {
    warn(e)
    return undefined
  }
}
