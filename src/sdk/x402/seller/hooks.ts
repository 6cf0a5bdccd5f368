import type { IncomingMessage } from 'node:http'
import type { PaymentHooks } from '../hooks.js'
import type { PaymentRequirements, PaymentRequirementsV1, ResourceInfo } from '../types.js'

/** What the seller middleware's hooks see: the payment, the requirements it is for, the resource and the request. */
export type SellerHookContext = {
  paymentPayload: Readonly<Record<string, unknown>>
  requirements: Readonly<PaymentRequirements | PaymentRequirementsV1>
  resource: Readonly<ResourceInfo>
  /** The incoming request (the reference's transportContext). */
  req: IncomingMessage
}

/**
 * Hooks of `paymentGate` (see ../hooks.ts for the rules): onBeforeVerify and onAfterVerify may
 * refuse the payment (402 naming the reason; the handler does not run); onBeforeSettle may refuse
 * it after the handler ran (its answer is discarded, nothing is charged); onAfterSettle sees every
 * settle outcome and is awaited before the paid answer goes out, so what it records is recorded
 * before the buyer hears back.
 */
export type SellerHooks = PaymentHooks<SellerHookContext>

/** Several hook sets, flattened per kind in the order given. */
export function hookLists(h: SellerHooks | SellerHooks[] | undefined) {
  const all = Array.isArray(h) ? h : h ? [h] : []
  const of = <K extends keyof SellerHooks>(k: K) =>
    all.flatMap((x) => (x[k] ? [x[k]!] : [])) as NonNullable<SellerHooks[K]>[]
  return {
    beforeVerify: of('onBeforeVerify'),
    afterVerify: of('onAfterVerify'),
    beforeSettle: of('onBeforeSettle'),
    afterSettle: of('onAfterSettle'),
  }
}
