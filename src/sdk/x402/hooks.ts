import type { SettleResponse, VerifyResponse } from './types.js'

/**
 * Verify and settle hooks, as the reference's `@x402/core` (2.27) defines them for its facilitator
 * and resource server, shared by our facilitator (daemon/facilitator/hooks.ts) and our seller
 * middleware (./seller/hooks.ts). Control flow is by return value only: `{ abort: true, reason }`
 * from a before hook refuses the payment before anything is checked or moved; from an after-verify
 * hook (the resource server's rule since 2.19) it turns a valid payment into a refused one, so the
 * caller never settles it. After-settle hooks only observe: the money has moved (or not).
 */
export type HookAbort = { abort: true; reason: string; message?: string }

/** What every hook sees: the payment as it arrived and the requirements it is checked against (read only). */
export type PaymentContext<P = unknown, R = unknown> = { paymentPayload: Readonly<P>; requirements: Readonly<R> }

export type BeforeVerifyHook<C> = (ctx: C) => Promise<void | HookAbort>
export type AfterVerifyHook<C> = (ctx: C & { result: Readonly<VerifyResponse> }) => Promise<void | HookAbort>
export type BeforeSettleHook<C> = (ctx: C) => Promise<void | HookAbort>
/** Called with every settle outcome, success or not (the reference's afterSettle and onSettleFailure in one). */
export type AfterSettleHook<C> = (ctx: C & { result: Readonly<SettleResponse> }) => Promise<void>

export type PaymentHooks<C> = {
  onBeforeVerify?: BeforeVerifyHook<C>
  onAfterVerify?: AfterVerifyHook<C>
  onBeforeSettle?: BeforeSettleHook<C>
  onAfterSettle?: AfterSettleHook<C>
}

export const isAbort = (v: unknown): v is HookAbort =>
  typeof v === 'object' && v !== null && (v as HookAbort).abort === true && typeof (v as HookAbort).reason === 'string'

/**
 * Runs hooks in registration order; the first abort wins and the rest are not called. A hook that
 * throws refuses the payment too (`failReason`): a guard that cannot decide must not wave a
 * payment through. (The reference's resource server logs and ignores such a hook; we fail closed.)
 */
export async function runGuards<A>(
  hooks: ((a: A) => Promise<void | HookAbort>)[],
  arg: A,
  failReason: string,
): Promise<HookAbort | undefined> {
  for (const h of hooks) {
    try {
      const r = await h(arg)
      if (isAbort(r)) return r
    } catch (e) {
      return { abort: true, reason: failReason, message: `a hook failed: ${(e as Error)?.message ?? String(e)}` }
    }
  }
  return undefined
}

/** Runs observing hooks in order; one that throws is reported and the others still run. */
export async function runObservers<A>(
  hooks: ((a: A) => Promise<void>)[],
  arg: A,
  onError: (e: unknown) => void,
): Promise<void> {
  for (const h of hooks) {
    try {
      await h(arg)
    } catch (e) {
      onError(e)
    }
  }
}
