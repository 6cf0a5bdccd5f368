import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { AUTH_CAPTURE } from '../../../../src/sdk/x402/evm/auth-capture/contracts.js'
import type { PaymentMethod, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { checkCapture } from './capture.js'
import { checkCollect, collectKey } from './collect.js'
import { LIFECYCLE, type LifecycleType, readLifecycle } from './lifecycle.js'
import { uint } from './parse.js'
import { checkRefund } from './refund.js'
import { checkVoid } from './void.js'

const lifecycleType = (p: Resolved) =>
  (LIFECYCLE as readonly unknown[]).includes(p.payload.type) ? (p.payload.type as LifecycleType) : undefined

/**
 * The x402 `auth-capture` scheme on EVM, as a `delegated` operator: the facilitator's executor
 * account is `PaymentInfo.operator` and submits every call, sponsored. A payload without `type` is
 * the client's collect (authorize or charge, by paymentFlow); `type` capture, void or refund is
 * the seller's lifecycle. Every settle goes through the ledger: a collect's key is the payer's
 * token authorization; a lifecycle operation's is the payment, the operation and its
 * `idempotencyKey` (else the escrow balances it was signed against, single-use by themselves),
 * and a settled key is answered with its first outcome rather than `duplicate_settlement`.
 */
export function authCaptureMethod(
  runtimeOf: (network: string) => EvmRuntime,
  receiverAuthorizer: () => PrivateKeyAccount | undefined,
  factories: () => readonly Address[],
): PaymentMethod {
  return {
    name: AUTH_CAPTURE,
    scheme: AUTH_CAPTURE,
    family: 'evm',
    matches: (p) => p.scheme === AUTH_CAPTURE,
    key(p) {
      if (p.payload.type === undefined) return collectKey(p)
      const l = readLifecycle(p, runtimeOf(p.spec.key).account)
      if ('reason' in l) return l
      const scope =
        l.idempotencyKey !== undefined
          ? `key:${l.idempotencyKey}`
          : l.type === 'void'
            ? 'once'
            : `state:${String(p.payload.expectedCapturableAmount)}:${String(p.payload.expectedRefundableAmount)}`
      return `auth-capture:${p.spec.caip2}:${l.type}:${l.hash}:${scope}`
    },
    ledgerAmount: (p) =>
      p.payload.type === 'capture' || p.payload.type === 'refund'
        ? (uint(p.payload.amount)?.toString() ?? '0')
        : p.payload.type === 'void'
          ? '0'
          : p.requirements.amount,
    replays: (p) => lifecycleType(p) !== undefined,
    async check(p, purpose) {
      const rt = runtimeOf(p.spec.key)
      if (p.payload.type === undefined) return checkCollect(rt, p, purpose, receiverAuthorizer(), factories())
      const l = readLifecycle(p, rt.account)
      if ('reason' in l) return { ok: false, ...l }
      if (l.type === 'capture') return checkCapture(rt, p, l, purpose, receiverAuthorizer())
      if (l.type === 'void') return checkVoid(rt, p, l, purpose, receiverAuthorizer())
      return checkRefund(rt, p, l, purpose, receiverAuthorizer())
    },
  }
}
