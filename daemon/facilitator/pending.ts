import type { Hex } from 'viem'
import { reasons } from '../../src/sdk/x402/reasons.js'
import type { FacilitatorDeps } from './deps.js'
import { fateOf, isEvmRow } from './reconcile.js'
import { networkByName } from './resolve.js'
import type { SettlementRow, SettlementStore } from './settlements.js'

/** How often an awaited transaction is asked for: an embedded chain answers in microseconds; a real RPC is spared. */
const POLL_MS = { embedded: 25, remote: 500 }
/** How long the background follower waits before leaving a row to the worker's sweep. */
const FOLLOW_MS = 15 * 60_000

/**
 * Settlements answered `settlement_pending`: their transaction was broadcast but its receipt did
 * not come in time. `settle` waits (bounded) for one, as a retry of the same payment does;
 * `follow` finishes one in the background, so the status route turns `completed` or `failed`
 * shortly after the chain decides, and `stop` ends the followers with the daemon. Whoever sees
 * the transaction mined first decides the row (`SettlementStore.decide` lets one through); the
 * decision is read from the chain as reconciliation reads it (authorization consumed or not).
 */
export function pendingSettlements(s: FacilitatorDeps, store: SettlementStore) {
  let stopped = false
  const followers = new Set<Promise<unknown>>()

  const mined = async (row: SettlementRow): Promise<boolean> => {
    if (!row.tx) return false
    if (isEvmRow(row)) {
      const chain = s.evm[networkByName(row.network)?.key ?? '']
      if (!chain) return false
      return (await chain.client.request({ method: 'eth_getTransactionReceipt', params: [row.tx as Hex] })) !== null
    }
    const st = (await s.solana.connection.getSignatureStatuses([row.tx], { searchTransactionHistory: true })).value[0]
    return !!st && (!!st.err || st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized')
  }

  const pollMs = (row: SettlementRow) => {
    const chain = isEvmRow(row) ? s.evm[networkByName(row.network)?.key ?? ''] : undefined
    return chain?.spec.rpc === 'embedded' ? POLL_MS.embedded : POLL_MS.remote
  }

  /**
   * Waits up to `waitMs` for the row's transaction to be mined, decides the row then, and returns it as it now stands.
   */
  const settle = async (row: SettlementRow, waitMs: number): Promise<SettlementRow> => {
    const deadline = Date.now() + waitMs
    let current = row
    for (;;) {
      if (current.state !== 'pending' || !current.tx) return current
      if (await mined(current)) {
        const fate = await fateOf(s, current)
        if (fate === 'settled')
          await store.decide(current.id, { state: 'settled', tx: current.tx, payer: current.payer ?? '' })
        else if (fate === 'failed') {
          await store.decide(current.id, {
            state: 'failed',
            reason: reasons.evmTransactionFailed,
            message: `transaction ${current.tx} was mined but did not pay this authorization; nothing was paid`,
          })
        }
        return (await store.byId(current.id)) ?? current
      }
      if (stopped || Date.now() >= deadline) return current
      await new Promise((r) => setTimeout(r, pollMs(current)).unref())
      current = (await store.byId(current.id)) ?? current
    }
  }

  return {
    settle,
    follow(row: SettlementRow): void {
      const f = settle(row, FOLLOW_MS)
        .then(
          (r) =>
            r.state === 'pending' &&
            !stopped &&
            s.log.warn({ id: r.id, tx: r.tx }, 'x402 settlement still pending; the worker sweep decides it'),
        )
        .catch((err) =>
          s.log.warn(
            { err, id: row.id },
            'x402 pending settlement not followed to its end; the worker sweep decides it',
          ),
        )
        .finally(() => followers.delete(f))
      followers.add(f)
    },
    async stop(): Promise<void> {
      stopped = true
      await Promise.all(followers)
    },
  }
}

export type PendingSettlements = ReturnType<typeof pendingSettlements>
