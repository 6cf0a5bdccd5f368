import { packageVersion } from '../../src/config/package-root.js'
import { type AaRuntime, aaRuntime } from '../buyer/aa/runtime.js'
import { anvilFeeTopUp } from '../buyer/send.js'
import { deploymentStore } from '../chains/embedded/deployments.js'
import { egressGuard } from '../egress/guard.js'
import { receiverAuthorizer } from '../facilitator/evm/batch-settlement/authorizer.js'
import { type PlatformService, platformService } from '../platform/service.js'
import { platformStore } from '../platform/store.js'
import type { Surfaces } from '../services.js'
import type { Core } from './core.js'
import type { ComposedFacilitator } from './facilitator.js'

/**
 * The platform's ERC-4337 stack on the local Base chain: deployed and alto started on first use,
 * so the ready line never waits for it; stopped with the daemon.
 */
export function composeAa({ config, base, keys, store, log, life }: Core): Record<string, AaRuntime> {
  const platformAa: Record<string, AaRuntime> = {}
  if (config.profile === 'local') {
    const rt = aaRuntime({
      chain: base,
      deployerKey: keys.deployer,
      deployments: deploymentStore(store),
      log,
      isAgentWallet: (address) => platformStore(store, undefined).isAgentWallet(address),
    })
    platformAa[base.key] = rt
    life.onStop(() => rt.stop())
  }
  return platformAa
}

/** The agent payments platform (docs/platform-api.md): its service, built as daemon/platform/service.ts asks. */
export function composePlatform(
  core: Core,
  p: { aa: Record<string, AaRuntime>; swap: Surfaces['swap']; facilitator: ComposedFacilitator },
): PlatformService {
  const { config, keys, store, chains, urls, radius, log, life } = core
  // User-directed requests (pay, upstreams, webhooks) leave through one guard: strict off the local profile
  // (docs/hosting.md "Hosting safely").
  const egress = egressGuard({ strict: config.profile !== 'local' || config.egress.strict, allow: config.egress.allow })
  life.onStop(() => egress.close())
  const platform = platformService({
    egress,
    profile: config.profile,
    version: packageVersion(),
    facilitatorUrl: urls.facilitator,
    platformUrl: urls.platform,
    store,
    evm: chains.evm,
    walletKey: keys.platformWallet,
    // Paid endpoints call the facilitator in process, as their payTo where the platform holds it (a delegated refund
    // needs the receiver).
    paidFacilitator: p.facilitator.inProcess,
    batchReceiverAuthorizer: receiverAuthorizer({
      profile: config.profile,
      keys: {
        facilitator: keys.facilitator,
        batchReceiverAuthorizer: config.keys.batchReceiverAuthorizer as `0x${string}` | undefined,
      },
    })?.address,
    previousWalletKeys: config.keys.platformWalletPrevious,
    aa: p.aa,
    swap: p.swap,
    topUpFees: config.profile === 'local' ? { [radius.key]: anvilFeeTopUp(radius) } : {},
    quotas: config.quotas,
    log,
    payValiditySeconds: config.pay.validitySeconds,
    preferAuthCapture: config.pay.preferAuthCapture,
    unfreezeRequiresDashboard: config.platform.unfreezeRequiresDashboard,
    approvalTtlSeconds: config.platform.approvalTtlSeconds,
    paidUpstreamTimeoutMs: config.platform.paidUpstreamTimeoutMs,
    channelSettings: config.pay.channels,
    receiptKey: keys.receipt,
  })
  // Pays still work without it; what they lack (a receipt an auditor can check) is said once, at start.
  if (!keys.receipt && config.role !== 'worker')
    log.warn(
      'no receipt key (PARX_RECEIPT_KEY / keys.receipt): pays carry ' +
        'no signed receipt and the manifest names no receipt signer',
    )
  // Settlement webhooks are drained by every serving process (a row is leased before it is sent).
  if (config.role !== 'worker') {
    platform.webhooks.delivery.start()
    life.onStop(() => platform.webhooks.delivery.stop())
  }
  return platform
}
