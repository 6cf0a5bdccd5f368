import type { Logger } from 'pino'
import {
  type AfterSettleHook,
  type AfterVerifyHook,
  type BeforeSettleHook,
  type BeforeVerifyHook,
  runGuards,
  runObservers,
} from '../../src/sdk/x402/hooks.js'
import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { Facilitator } from './service.js'

/** What a facilitator hook sees, named as the reference's `FacilitatorVerifyContext` names it (read only). */
export type FacilitatorHookContext = {
  /** The payment as the wire carried it: version, scheme, network, the scheme's payload, its extensions. */
  paymentPayload: Readonly<{
    x402Version: number
    scheme: string
    network: string
    payload: Record<string, unknown>
    extensions?: Record<string, unknown>
  }>
  requirements: Readonly<Payment['requirements']>
}

/**
 * Registration, as the reference's `x402Facilitator` offers it (each returns the facilitator, so
 * calls chain). For someone embedding the facilitator service in-process; the HTTP routes call the
 * hooked verify and settle like any other caller.
 *
 * - onBeforeVerify: `{ abort, reason }` answers `isValid: false` with that reason; nothing is checked.
 * - onAfterVerify: runs after a valid verify; `{ abort, reason }` turns it into `isValid: false`
 *   (the reference's resource-server rule since 2.19, brought to the facilitator).
 * - onBeforeSettle: `{ abort, reason }` answers `success: false` with that reason, nothing sent
 *   (the reference throws "Settlement aborted"; an HTTP caller would then see a 500).
 * - onAfterSettle: sees every settle answer, success or not; it cannot change it (money moved).
 *
 * Hooks run in registration order; the first abort wins. A before/after-verify or before-settle
 * hook that throws refuses the payment (`unexpected_verify_error` / `unexpected_settle_error`); an
 * after-settle hook that throws is logged.
 */
export type FacilitatorHooks<T> = {
  onBeforeVerify(hook: BeforeVerifyHook<FacilitatorHookContext>): Hooked<T>
  onAfterVerify(hook: AfterVerifyHook<FacilitatorHookContext>): Hooked<T>
  onBeforeSettle(hook: BeforeSettleHook<FacilitatorHookContext>): Hooked<T>
  onAfterSettle(hook: AfterSettleHook<FacilitatorHookContext>): Hooked<T>
}

/** A facilitator with hooks (daemon/main.ts builds the daemon's one this way). */
export type Hooked<T> = T & FacilitatorHooks<T>

type Core = { verify(p: Payment): Promise<VerifyResponse>; settle(p: Payment): Promise<SettleResponse> }

/**
 * The facilitator `f` with hooks around its verify and settle.
 *
 * @example
 * const facilitator = withHooks(createFacilitator(deps), log)
 *   .onBeforeSettle(async ({ requirements }) => (blocked(requirements.payTo) ? { abort: true, reason: 'payee_blocked' }
 * : undefined))
 */
export function withHooks<T extends Core>(f: T, log: Pick<Logger, 'warn'>): Hooked<T> {
  const beforeVerify: BeforeVerifyHook<FacilitatorHookContext>[] = []
  const afterVerify: AfterVerifyHook<FacilitatorHookContext>[] = []
  const beforeSettle: BeforeSettleHook<FacilitatorHookContext>[] = []
  const afterSettle: AfterSettleHook<FacilitatorHookContext>[] = []
  const ctxOf = (p: Payment): FacilitatorHookContext => ({
    paymentPayload: {
      x402Version: p.version,
      scheme: p.scheme,
      network: p.network,
      payload: p.payload,
      ...(p.extensions ? { extensions: p.extensions } : {}),
    },
    requirements: p.requirements,
  })
  const payerOf = (r: { payer?: string }) => r.payer ?? ''

  const hooked: Hooked<T> = {
    ...f,
    async verify(p: Payment): Promise<VerifyResponse> {
      const ctx = ctxOf(p)
      const before = await runGuards(beforeVerify, ctx, reasons.unexpectedVerifyError)
      if (before)
        return {
          isValid: false,
          invalidReason: before.reason,
          invalidMessage: before.message ?? `refused by a hook: ${before.reason}`,
          payer: '',
        }
      const result = await f.verify(p)
      if (!result.isValid) return result
      const after = await runGuards(afterVerify, { ...ctx, result }, reasons.unexpectedVerifyError)
      if (after)
        return {
          isValid: false,
          invalidReason: after.reason,
          invalidMessage: after.message ?? `refused by a hook: ${after.reason}`,
          payer: payerOf(result),
        }
      return result
    },
    async settle(p: Payment): Promise<SettleResponse> {
      const ctx = ctxOf(p)
      const before = await runGuards(beforeSettle, ctx, reasons.unexpectedSettleError)
      const result: SettleResponse = before
        ? {
            success: false,
            errorReason: before.reason,
            errorMessage: before.message ?? `refused by a hook: ${before.reason}`,
            payer: '',
            transaction: '',
            network: p.requirements.network,
          }
        : await f.settle(p)
      await runObservers(afterSettle, { ...ctx, result }, (err) =>
        log.warn({ err }, 'an onAfterSettle hook of the facilitator failed'),
      )
      return result
    },
    onBeforeVerify: (h: BeforeVerifyHook<FacilitatorHookContext>) => (beforeVerify.push(h), hooked),
    onAfterVerify: (h: AfterVerifyHook<FacilitatorHookContext>) => (afterVerify.push(h), hooked),
    onBeforeSettle: (h: BeforeSettleHook<FacilitatorHookContext>) => (beforeSettle.push(h), hooked),
    onAfterSettle: (h: AfterSettleHook<FacilitatorHookContext>) => (afterSettle.push(h), hooked),
  } as Hooked<T>
  return hooked
}

/** The daemon's facilitator: the service with its hooks. */
export type HookedFacilitator = Hooked<Facilitator>
