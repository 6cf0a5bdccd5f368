import type { Logger } from 'pino'
import type { ReplayResult } from '../chains/evm/outbox-replay.js'
import type { Facilitator } from '../facilitator/service.js'
import type { Duties } from './leader.js'

export type WorkerDutiesParameters = {
  facilitator: Pick<Facilitator, 'reconcile'>
  /** Reconciles the transaction outbox (every signed transaction without a receipt); runs first each round. */
  replay?: (select: { idleForMs?: number }) => Promise<ReplayResult>
  log: Logger
  /**
   * `embedded`: one process per data dir, so what is pending from before this start was left by
   * the previous run (decided once, at start). `hosted`: api replicas settle concurrently, so the
   * leader sweeps rows idle for `idleForMs` every `sweepEveryMs`.
   */
  mode: 'embedded' | 'hosted'
  sweepEveryMs?: number
  idleForMs?: number
  /**
   * Decides pay spends held until their signed payment expired (daemon/buyer/pending-spends.ts),
   * every `spendsEveryMs` (config `pay.heldRecheckEverySeconds`; default 5 s: a held spend is released within
   * seconds of its expiry).
   */
  pendingSpends?: () => Promise<unknown>
  spendsEveryMs?: number
}

/** Longer than any settle takes from claim to answer (the chain's wait included). */
const IDLE_FOR_MS = 120_000

/**
 * The worker duties, run by the leader only: the transaction outbox (resubmit or fail what has no
 * receipt), then reconciliation of x402 settlements left pending or served by a replayed transaction
 * (and, as later areas land, their sweeps: the cross-chain solver worker), and beside them the
 * recheck of pay spends held until their signed payment expired. `firstPass` resolves
 * once the first round is done, for callers that must not race it.
 */
export function workerDuties(p: WorkerDutiesParameters): { duties: Duties; firstPass: Promise<void> } {
  let passed!: () => void
  const firstPass = new Promise<void>((resolve) => (passed = resolve))
  const round = async (select: Parameters<Facilitator['reconcile']>[0]) => {
    let replayed: ReplayResult | undefined
    try {
      replayed = await p.replay?.({ idleForMs: select.idleForMs })
    } catch (err) {
      p.log.warn({ err }, 'outbox reconciliation failed; the next round retries')
    }
    try {
      await p.facilitator.reconcile({ ...select, replayed })
    } catch (err) {
      p.log.warn({ err }, 'x402 reconciliation failed; the next round retries')
    }
  }
  const duties: Duties = async () => {
    // Embedded: first everything the previous run left (nothing of this run is in flight yet);
    // both modes then sweep on a schedule what stayed idle too long (a reorg, a node that lost it).
    let stopped = false
    let running = round(
      p.mode === 'embedded' ? { leftByEarlierRun: true } : { idleForMs: p.idleForMs ?? IDLE_FOR_MS },
    ).then(passed)
    const timer = setInterval(() => {
      running = running.then(() => (stopped ? undefined : round({ idleForMs: p.idleForMs ?? IDLE_FOR_MS })))
    }, p.sweepEveryMs ?? 30_000)
    timer.unref()
    // Its own cadence: a held spend keeps an agent's limit busy until it is decided.
    let spending: Promise<unknown> = Promise.resolve()
    const spendsTimer =
      p.pendingSpends &&
      setInterval(() => {
        spending = spending
          .then(() => (stopped ? undefined : p.pendingSpends!()))
          .catch((err) => p.log.warn({ err }, 'held pay spends: recheck failed; the next round retries'))
      }, p.spendsEveryMs ?? 5_000)
    spendsTimer?.unref()
    return async () => {
      stopped = true
      clearInterval(timer)
      if (spendsTimer) clearInterval(spendsTimer)
      await running
      await spending
    }
  }
  return { duties, firstPass }
}
