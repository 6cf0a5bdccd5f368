import { agentHoldDuty } from '../buyer/holds/refresh.js'
import { recheckPendingSpends } from '../buyer/pending-spends.js'
import { fillNonceGaps } from '../chains/evm/nonce-gaps.js'
import { replayOutbox } from '../chains/evm/outbox-replay.js'
import type { PlatformService } from '../platform/service.js'
import { channelClaimDuty } from '../seller/batch-settlement/claim-duty.js'
import { recordChannelSettlement } from '../seller/batch-settlement/settlements.js'
import { holdSweepDuty } from '../seller/hold-duty.js'
import { recordHoldVoid } from '../seller/hold-voids.js'
import { webhookQueue } from '../seller/webhooks/queue.js'
import { webhookRetention } from '../seller/webhooks/retention.js'
import { workerDuties } from '../worker/duties.js'
import { type Duties, type Leadership, postgresLeadership, soleLeadership } from '../worker/leader.js'
import type { XchainParts } from '../xchain/compose.js'
import type { Core } from './core.js'
import type { ComposedFacilitator } from './facilitator.js'

export type ComposedWorker = { leadership: Leadership; firstPass: Promise<void> }

/**
 * The worker duties, on a process of role worker or all: exactly one process runs them, on SQLite
 * the only one, on PostgreSQL the holder of the advisory lock (a standby takes over when it dies).
 * `onLeadership` hands the leadership to what asks whether this process leads.
 */
export async function composeWorker(
  core: Core,
  p: {
    facilitator: ComposedFacilitator
    platform: PlatformService
    xchain: XchainParts
    onLeadership(l: Leadership): void
  },
): Promise<ComposedWorker | undefined> {
  const { config, chains, sender, outbox, log, life, store, metrics, urls } = core
  if (config.role === 'api') {
    core.replayed()
    return undefined
  }
  const { platform, xchain } = p
  const inProcessFacilitator = p.facilitator.inProcess
  // Hosted, the relayer keys' nonces come from the store's shared counter: a nonce a killed process took and never sent
  // is filled.
  const sharedSenders = () =>
    Object.values(chains.evm).flatMap((chain) =>
      (['solver', 'facilitator'] as const).map((role) => ({ chain, sender: sender(chain.key, role) })),
    )
  const replay = async (select: { idleForMs?: number }) => {
    try {
      const result = await replayOutbox(outbox, chains.evm, log, select)
      if (config.store.url && select.idleForMs !== undefined)
        await fillNonceGaps({ outbox, senders: sharedSenders(), log, idleForMs: select.idleForMs })
      return result
    } finally {
      core.replayed()
    }
  }
  const { duties: reconcile, firstPass } = workerDuties({
    facilitator: p.facilitator.service,
    replay,
    log,
    mode: config.store.url ? 'hosted' : 'embedded',
    pendingSpends: () => recheckPendingSpends({ spends: platform.spends, evm: chains.evm, log }),
    spendsEveryMs: config.pay.heldRecheckEverySeconds * 1000,
  })
  // The leader's duties: reconciliation, then the cross-chain solver worker beside it.
  const duties: Duties = async () => {
    const stopReconcile = await reconcile()
    const stopSolver = await xchain.worker.duty()
    // Finished webhook deliveries past webhooks.retentionDays, hourly (docs/operations.md "Retention and log size").
    const stopPruning = webhookRetention({
      queue: webhookQueue(store),
      retentionDays: config.webhooks.retentionDays,
      log,
    })
    // Batch-settlement channels paying the platform's endpoints: claimed and swept on a schedule (docs/platform-api.md
    // "Batch settlement").
    const sc = config.sellerChannels
    const stopClaims = await channelClaimDuty({
      // In process, as the paid endpoints call it: a worker serves no /facilitator route, and off the
      // local profile that route wants a partner key. Claims and sweeps ask nothing of the caller
      // (our authorizer signs the claim, a sweep is permissionless), so no receiver is named.
      channels: platform.sellerChannels,
      facilitator: inProcessFacilitator(undefined),
      log,
      everyMs: sc.claimEverySeconds * 1000,
      metrics: metrics.channelClaims,
      policy: { minUnclaimed: BigInt(sc.claimMinUnclaimed), maxAgeMs: sc.claimMaxAgeSeconds * 1000 },
      onSettled: (s) =>
        recordChannelSettlement(
          { endpoints: platform.endpoints, webhooks: platform.webhooks, evm: chains.evm, platformUrl: urls.platform },
          s,
        ),
    })()
    const stopHolds = await holdDuties(core, p)
    return async () => {
      await stopHolds()
      await stopClaims()
      await stopPruning()
      await stopSolver()
      await stopReconcile()
    }
  }
  const onError = (err: Error) => log.warn({ err }, 'worker leadership: error')
  const led = config.store.url
    ? postgresLeadership({
        url: config.store.url,
        duties,
        onError,
        onChange: (leading) =>
          log.info({ leading }, leading ? 'leading the worker duties' : 'no longer leading the worker duties'),
      })
    : soleLeadership(duties, onError)
  p.onLeadership(led)
  life.onStop(() => led.stop())
  // At once at a stop, beside the drain: a standby takes the lock now, not after a lease.
  life.atStopFirst(() => led.stop())
  // One process per data dir: nothing is answered before what the previous run left is
  // reconciled (transactions replayed, settlements decided), so no answer names a lost transaction.
  if (!config.store.url) await firstPass
  return { leadership: led, firstPass }
}

/** The leader's duties for auth-capture holds, sellers' and agents'; resolves to their stop. */
async function holdDuties(
  { config, chains, log, urls }: Core,
  { platform, facilitator }: { platform: PlatformService; facilitator: ComposedFacilitator },
): Promise<() => Promise<void>> {
  // auth-capture holds no request will finish: voided, so the buyer is whole before any deadline
  // (docs/platform-api.md "Auth-capture").
  const stopHoldSweep = await holdSweepDuty({
    holds: platform.sellerHolds,
    facilitatorFor: facilitator.inProcess,
    log,
    everyMs: config.sellerHolds.sweepEverySeconds * 1000,
    // The seller hears of the sweep's voids as of any other (payment.voided).
    onVoided: (hold, result) =>
      recordHoldVoid(
        { endpoints: platform.endpoints, webhooks: platform.webhooks, platformUrl: urls.platform },
        hold,
        result,
      ),
  })()
  // Agents' own holds: what sellers captured, voided or refunded comes back to the limits; a hold left past its
  // capture deadline is reclaimed (docs/platform-api.md "Paying with auth-capture").
  const stopAgentHolds = await agentHoldDuty({
    holds: platform.agentHolds,
    evm: chains.evm,
    log,
    everyMs: config.pay.holdRefreshEverySeconds * 1000,
    reclaim: (h) => platform.reclaimHold(h),
  })()
  return async () => {
    await stopAgentHolds()
    await stopHoldSweep()
  }
}
