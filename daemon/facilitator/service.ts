import { UPTO } from '../../src/sdk/x402/evm/upto.js'
import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import { EXACT } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable.js'
import { DEFAULT_RECEIPT_TIMEOUT_MS, type FacilitatorDeps } from './deps.js'
import { receiverAuthorizer } from './evm/batch-settlement/authorizer.js'
import { type EvmRuntime, evmRuntime } from './evm/runtime.js'
import { idempotent } from './idempotent.js'
import type { Failure, PaymentMethod, Resolved } from './method.js'
import { paymentMethods } from './methods.js'
import { identify } from './payment-identity.js'
import { paymentIdStore } from './payment-ids.js'
import { pendingSettlements } from './pending.js'
import { withoutUpstreamDetail } from './public-answers.js'
import { reconcilePending, reconcileReplayed } from './reconcile.js'
import { repeatedSettles } from './repeats.js'
import { resolvePayment, servedNetworks } from './resolve.js'
import { settlementStore } from './settlements.js'
import { paymentStatus } from './status.js'
import { supported } from './supported.js'
import { type SvmRuntime, svmRuntime } from './svm/runtime.js'
import type { Facilitator } from './types.js'
import { verifiedCache } from './verified-cache.js'

export type { Facilitator } from './types.js'

/**
 * Verify and settle for every registered method. Settlement is at most once per authorization:
 * the ledger row is claimed before anything is checked or broadcast and finished before the
 * answer, so concurrent or repeated settles of one authorization get `duplicate_settlement`. A
 * transaction whose receipt does not come within the receipt wait is answered `settlement_pending`
 * and finished in the background (./pending.ts); a payment-identifier makes verify and settle
 * idempotent per seller (./idempotent.ts); the status routes read the same ledger (./status.ts).
 * Its answers' messages leave without upstream detail (./public-answers.ts).
 */
export function createFacilitator(s: FacilitatorDeps): Facilitator {
  return withoutUpstreamDetail(facilitator(s), s.log)
}

function facilitator(s: FacilitatorDeps): Facilitator {
  const store = settlementStore(s.store)
  const ids = paymentIdStore(s.store)
  const pending = pendingSettlements(s, store)
  const receiptTimeoutMs = s.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS
  // Rows below this id were left by an earlier run; taken now, before any settle of this run.
  const startedBefore = store.nextId()
  startedBefore.catch(() => {}) // awaited (and reported) by reconcile
  const evm = new Map<string, EvmRuntime>()
  let svm: SvmRuntime | undefined
  const deps = {
    evm: (network: string) => {
      let rt = evm.get(network)
      if (!rt) evm.set(network, (rt = evmRuntime(s, s.evm[network]!)))
      return rt
    },
    svm: () => (svm ??= svmRuntime(s)),
    store,
    eip6492Factories: () => s.eip6492Factories ?? [],
    receiverAuthorizer: () => receiverAuthorizer(s),
  }
  const all = paymentMethods(deps)
  const verified = s.verified ?? verifiedCache()

  const pick = (p: Payment): { r: Resolved; m: PaymentMethod } | Failure => {
    const r = resolvePayment(s, p)
    if (!('spec' in r)) return r
    const m = all.find((x) => x.family === r.spec.family && (x.scheme ?? EXACT) === r.scheme && x.matches(r))
    if (!m) {
      const atm = String(r.requirements.extra.assetTransferMethod ?? '')
      return {
        reason: reasons.unsupportedScheme,
        message: `assetTransferMethod '${atm}' is not settled on ${r.spec.caip2}; see GET /supported`,
      }
    }
    return { r, m }
  }

  const failed = (network: string, f: Failure, tx = ''): SettleResponse => ({
    success: false,
    errorReason: f.reason,
    errorMessage: f.message,
    payer: f.payer ?? '',
    transaction: tx,
    network,
  })

  const { duplicate, answerOf, pendingAnswer } = repeatedSettles({ s, store, pending, receiptTimeoutMs, failed })
  const withIds = idempotent({ ids, store, answerOf, failed })
  const status = paymentStatus({ ids, store })

  const verifyPicked = async (p: Payment, picked: { r: Resolved; m: PaymentMethod }): Promise<VerifyResponse> => {
    try {
      const c = await picked.m.check(picked.r, 'verify')
      if (c.ok) verified.add(p)
      // A valid answer omits invalidReason, as the reference does (docs/facilitator.md "x402 facilitator"): null was
      // allowed, but a
      // stock mppx seller's facilitator client rejects null (its schema wants absent or a string).
      return c.ok
        ? { isValid: true, payer: c.payer, ...(c.extra ? { extra: c.extra } : {}) }
        : { isValid: false, invalidReason: c.reason, invalidMessage: c.message, payer: c.payer ?? '' }
    } catch (e) {
      if (isStoreUnavailable(e)) throw storeUnavailable(e)
      s.log.error({ err: e }, 'x402 verify failed unexpectedly')
      return {
        isValid: false,
        invalidReason: reasons.unexpectedVerifyError,
        invalidMessage: (e as Error).message,
        payer: '',
      }
    }
  }

  const settlePicked = async (
    p: Payment,
    { r, m }: { r: Resolved; m: PaymentMethod },
    onClaim?: (id: number) => Promise<void>,
  ): Promise<SettleResponse> => {
    const network = r.spec.caip2
    const key = m.key(r)
    // A payload that does not parse holds no authorization to claim, nor to pay with.
    if (typeof key !== 'string') return failed(network, key)
    let claim: { id: number }
    for (;;) {
      const c = await store.claim(key, {
        network,
        method: m.name,
        payTo: r.requirements.payTo,
        asset: r.token.address,
        amount: m.ledgerAmount?.(r) ?? r.requirements.amount,
      })
      if (!('existing' in c)) {
        claim = c
        break
      }
      const answer = await duplicate(network, key, c.existing)
      // An idempotent operation settled before: its first outcome again, not a refusal.
      if (answer && m.replays?.(r) && answer.errorReason === reasons.duplicateSettlement && answer.transaction) {
        return {
          success: true,
          payer: answer.payer,
          transaction: answer.transaction,
          network,
          amount: c.existing.amount,
          extra: { replayed: true },
        }
      }
      if (answer) return answer
    }
    await onClaim?.(claim.id)
    try {
      const c = await m.check(r, verified.take(p) ? 'settle-verified' : 'settle')
      if (!c.ok) {
        await store.failed(claim.id, c)
        return failed(network, c)
      }
      const out = await c.execute()
      if (out.ok) {
        await store.settled(claim.id, out.tx, c.payer, { reported: true })
        // upto: the amount moved, which may be less than the signed maximum (the reference's field).
        return {
          success: true,
          payer: c.payer,
          transaction: out.tx,
          network,
          ...(r.scheme === UPTO ? { amount: r.requirements.amount } : {}),
          ...out.answer,
        }
      }
      // Broadcast with an unknown fate: keep the claim, so no retry can pay a second time, and
      // follow the transaction in the background until the chain decides it.
      if (out.pending) {
        await store.broadcast(claim.id, out.tx ?? '', c.payer)
        const row = await store.byId(claim.id)
        if (row?.tx) pending.follow(row)
        if (out.tx) return pendingAnswer(network, { ...row!, payer: c.payer })
      } else await store.failed(claim.id, { ...out, payer: c.payer })
      return failed(network, { ...out, payer: c.payer }, out.tx)
    } catch (e) {
      // The ledger cannot be written: the row stays pending (claimed), so nothing can pay twice,
      // and reconciliation decides it from the chain; the client gets a 503 to retry.
      if (isStoreUnavailable(e)) throw storeUnavailable(e)
      s.log.error({ err: e, key }, 'x402 settle failed unexpectedly')
      await store.failed(claim.id, { reason: reasons.unexpectedSettleError, message: (e as Error).message })
      return failed(network, { reason: reasons.unexpectedSettleError, message: (e as Error).message })
    }
  }

  return {
    supported: () => supported(s),

    async verify(p) {
      const picked = pick(p)
      if (!('m' in picked))
        return {
          isValid: false,
          invalidReason: picked.reason,
          invalidMessage: picked.message,
          payer: picked.payer ?? '',
        }
      const who = identify(p, picked.r)
      if (who && 'reason' in who)
        return { isValid: false, invalidReason: who.reason, invalidMessage: who.message, payer: '' }
      if (!who) return verifyPicked(p, picked)
      return withIds.verify(who, picked.r.spec.caip2, () => verifyPicked(p, picked))
    },

    async settle(p) {
      const picked = pick(p)
      if (!('m' in picked)) return failed(p.requirements.network, picked)
      const who = identify(p, picked.r)
      if (who && 'reason' in who) return failed(picked.r.spec.caip2, who)
      if (!who) return settlePicked(p, picked)
      return withIds.settle(who, picked.r.spec.caip2, (onClaim) => settlePicked(p, picked, onClaim))
    },

    statusOf: (paymentId, payTo) => status.byPaymentId(paymentId, payTo),
    statusOfTransaction: (transaction) => status.byTransaction(transaction),
    stop: () => pending.stop(),

    async warmUp() {
      await Promise.all(
        servedNetworks(s)
          .filter((n) => n.family === 'evm' && s.evm[n.key])
          .map(async (n) => {
            try {
              await deps.evm(n.key).ready()
            } catch (e) {
              s.log.warn(
                { err: e, network: n.key },
                'x402 facilitator not ready yet on this network; will retry on the next payment',
              )
            }
          }),
      )
    },

    async reconcile(select) {
      const before = select.leftByEarlierRun ? await startedBefore : 0
      const idleSince = select.idleForMs === undefined ? undefined : Date.now() - select.idleForMs
      if (select.replayed)
        await reconcileReplayed(s, store, [...select.replayed.rebroadcast, ...select.replayed.failed], (row) =>
          pending.follow(row),
        )
      await reconcilePending(
        s,
        store,
        (row) => row.id < before || (idleSince !== undefined && Number(row.updated_at) < idleSince),
      )
    },
  }
}
