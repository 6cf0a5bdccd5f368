import { reasons } from '../../src/sdk/x402/reasons.js'
import type { SettleResponse, SupportedResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { FacilitatorDeps } from './deps.js'
import { evmRuntime, type EvmRuntime } from './evm/runtime.js'
import type { Failure, PaymentMethod, Resolved } from './method.js'
import { paymentMethods } from './methods.js'
import type { ReplayResult } from '../chains/evm/outbox-replay.js'
import { reconcilePending, reconcileReplayed } from './reconcile.js'
import { networkByName, resolvePayment, servedNetworks } from './resolve.js'
import { settlementStore, type SettlementRow } from './settlements.js'
import { EXACT, methods } from '../../src/sdk/x402/types.js'
import { UPTO } from '../../src/sdk/x402/evm/upto.js'

/** How long a concurrent duplicate waits for the first settle's outcome, to name its transaction. */
const DUPLICATE_WAIT_MS = 30_000
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable.js'
import { supported } from './supported.js'
import { svmRuntime, type SvmRuntime } from './svm/runtime.js'
import { verifiedCache } from './verified-cache.js'

export type Facilitator = {
  supported(): SupportedResponse
  verify(p: Payment): Promise<VerifyResponse>
  settle(p: Payment): Promise<SettleResponse>
  /** Prepares every served network (executor delegation) in the background; failures are retried on use. */
  warmUp(): Promise<void>
  /**
   * A worker duty (the leader runs it): decides pending settlements from the chain. `leftByEarlierRun`:
   * the rows a previous run of this process left (the embedded, single-process case); `idleForMs`:
   * rows untouched that long, which no live replica is still settling (the hosted case).
   */
  reconcile(select: { leftByEarlierRun?: boolean; idleForMs?: number; replayed?: ReplayResult }): Promise<void>
}

/**
 * Verify and settle for every registered method. Settlement is at most once per authorization:
 * the ledger row is claimed before anything is checked or broadcast and finished before the
 * answer, so concurrent or repeated settles of one authorization get `duplicate_settlement`.
 */
export function createFacilitator(s: FacilitatorDeps): Facilitator {
  const store = settlementStore(s.store)
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
  }
  const all = paymentMethods(deps)
  const verified = s.verified ?? verifiedCache()

  const pick = (p: Payment): { r: Resolved; m: PaymentMethod } | Failure => {
    const r = resolvePayment(s, p)
    if (!('spec' in r)) return r
    const m = all.find((x) => x.family === r.spec.family && (x.scheme ?? EXACT) === r.scheme && x.matches(r))
    if (!m) {
      const atm = String(r.requirements.extra.assetTransferMethod ?? '')
      return { reason: reasons.unsupportedScheme, message: `assetTransferMethod '${atm}' is not settled on ${r.spec.caip2}; see GET /supported` }
    }
    return { r, m }
  }

  const failed = (network: string, f: Failure, tx = ''): SettleResponse => ({
    success: false, errorReason: f.reason, errorMessage: f.message, payer: f.payer ?? '', transaction: tx, network,
  })

  /**
   * A second settle of a live authorization. One still being settled is waited for (bounded), so
   * the answer names the first settlement's transaction. A settled one is checked on chain before
   * answering: `duplicate_settlement` is never given for a transaction the chain does not have.
   */
  const duplicate = async (network: string, key: string, first: SettlementRow): Promise<SettleResponse | undefined> => {
    let e: SettlementRow | undefined = first
    while (e?.state === 'pending' && Date.now() - Number(e.updated_at) < DUPLICATE_WAIT_MS) {
      await new Promise((r) => setTimeout(r, 25))
      e = await store.live(key)
    }
    // Its settle failed meanwhile: the authorization is free again, this request may take it.
    if (!e) return undefined
    if (e.state === 'settled' && e.tx && (e.method === methods.erc2612 || e.method === methods.eip3009 || e.method === methods.permit2 || e.method === UPTO) && !(await onChain(network, e.tx))) {
      return failed(network, { reason: reasons.settlementPending, message: `this authorization was recorded as settled in ${e.tx}, which the chain does not have now; reconciliation broadcasts it again or releases the authorization: retry shortly`, payer: e.payer ?? '' }, e.tx)
    }
    const what = e.state === 'settled' ? `was settled in ${e.tx}` : 'is being settled by another request'
    return failed(network, { reason: reasons.duplicateSettlement, message: `this authorization ${what}`, payer: e.payer ?? '' }, e.tx ?? '')
  }
  const onChain = async (network: string, tx: string) => {
    const spec = networkByName(network)
    const chain = spec && s.evm[spec.key]
    if (!chain) return true
    return (await chain.client.request({ method: 'eth_getTransactionReceipt', params: [tx as `0x${string}`] })) !== null
  }

  return {
    supported: () => supported(s),

    async verify(p) {
      const picked = pick(p)
      if (!('m' in picked)) return { isValid: false, invalidReason: picked.reason, invalidMessage: picked.message, payer: picked.payer ?? '' }
      try {
        const c = await picked.m.check(picked.r, 'verify')
        if (c.ok) verified.add(p)
        // A valid answer omits invalidReason, as the reference does: SPEC §2.8 allows null, but a
        // stock mppx seller's facilitator client rejects null (its schema wants absent or a string).
        return c.ok ? { isValid: true, payer: c.payer } : { isValid: false, invalidReason: c.reason, invalidMessage: c.message, payer: c.payer ?? '' }
      } catch (e) {
        if (isStoreUnavailable(e)) throw storeUnavailable(e)
        s.log.error({ err: e }, 'x402 verify failed unexpectedly')
        return { isValid: false, invalidReason: reasons.unexpectedVerifyError, invalidMessage: (e as Error).message, payer: '' }
      }
    },

    async settle(p) {
      const picked = pick(p)
      if (!('m' in picked)) return failed(p.requirements.network, picked)
      const { r, m } = picked
      const network = r.spec.caip2
      const key = m.key(r)
      // A payload that does not parse holds no authorization to claim, nor to pay with.
      if (typeof key !== 'string') return failed(network, key)
      let claim: { id: number }
      for (;;) {
        const c = await store.claim(key, { network, method: m.name, payTo: r.requirements.payTo, asset: r.token.address, amount: r.requirements.amount })
        if (!('existing' in c)) {
          claim = c
          break
        }
        const answer = await duplicate(network, key, c.existing)
        if (answer) return answer
      }
      try {
        const c = await m.check(r, verified.take(p) ? 'settle-verified' : 'settle')
        if (!c.ok) {
          await store.failed(claim.id, c)
          return failed(network, c)
        }
        const out = await c.execute()
        if (out.ok) {
          await store.settled(claim.id, out.tx, c.payer)
          // upto: the amount moved, which may be less than the signed maximum (the reference's field).
          return { success: true, payer: c.payer, transaction: out.tx, network, ...(r.scheme === UPTO ? { amount: r.requirements.amount } : {}) }
        }
        // Broadcast with an unknown fate: keep the claim, so no retry can pay a second time.
        if (out.pending) await store.broadcast(claim.id, out.tx ?? '')
        else await store.failed(claim.id, { ...out, payer: c.payer })
        return failed(network, { ...out, payer: c.payer }, out.tx)
      } catch (e) {
        // The ledger cannot be written: the row stays pending (claimed), so nothing can pay twice,
        // and reconciliation decides it from the chain; the client gets a 503 to retry.
        if (isStoreUnavailable(e)) throw storeUnavailable(e)
        s.log.error({ err: e, key }, 'x402 settle failed unexpectedly')
        await store.failed(claim.id, { reason: reasons.unexpectedSettleError, message: (e as Error).message })
        return failed(network, { reason: reasons.unexpectedSettleError, message: (e as Error).message })
      }
    },

    async warmUp() {
      await Promise.all(servedNetworks(s).filter((n) => n.family === 'evm' && s.evm[n.key]).map(async (n) => {
        try {
          await deps.evm(n.key).ready()
        } catch (e) {
          s.log.warn({ err: e, network: n.key }, 'x402 facilitator not ready yet on this network; will retry on the next payment')
        }
      }))
    },

    async reconcile(select) {
      const before = select.leftByEarlierRun ? await startedBefore : 0
      const idleSince = select.idleForMs === undefined ? undefined : Date.now() - select.idleForMs
      if (select.replayed) await reconcileReplayed(s, store, [...select.replayed.rebroadcast, ...select.replayed.failed])
      await reconcilePending(s, store, (row) => row.id < before || (idleSince !== undefined && Number(row.updated_at) < idleSince))
    },
  }
}
