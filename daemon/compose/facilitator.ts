import type { Address } from 'viem'
import { BAZAAR } from '../../src/sdk/x402/bazaar.js'
import { type BazaarService, bazaarService } from '../bazaar/service.js'
import { type HookedFacilitator, withHooks } from '../facilitator/hooks.js'
import { createFacilitator } from '../facilitator/service.js'
import { instrumentFacilitator } from '../metrics/facilitator.js'
import type { PlatformService } from '../platform/service.js'
import { paidFacilitator } from '../seller/paid-facilitator.js'
import type { Core } from './core.js'

export type ComposedFacilitator = {
  /** The facilitator with its verify and settle hooks (../facilitator/hooks.ts), counted when metrics are on. */
  service: HookedFacilitator
  /** Its own calls in process, for a caller acting as `receiver`: paid endpoints and the claim duty. */
  inProcess: ReturnType<typeof paidFacilitator>
}

/** The x402 facilitator on every served network, with the facilitator key's senders. */
export function composeFacilitator({
  config,
  chains,
  log,
  store,
  accounts,
  keys,
  sender,
  metrics,
  life,
}: Core): ComposedFacilitator {
  const hooked = withHooks(
    createFacilitator({
      profile: config.profile,
      evm: chains.evm,
      solana: chains.solana,
      log,
      store,
      accounts,
      keys: {
        facilitator: keys.facilitator,
        solanaFacilitator: keys.solanaFacilitator,
        batchReceiverAuthorizer: config.keys.batchReceiverAuthorizer as `0x${string}` | undefined,
      },
      sender: (network) => sender(network, 'facilitator'),
      receiptTimeoutMs: config.facilitator.receiptTimeoutMs,
      extensions: [BAZAAR],
      eip6492Factories: config.facilitator.eip6492Factories as Address[],
      metrics: metrics.facilitator,
    }),
    log,
  )
  const service = metrics.facilitator ? instrumentFacilitator(hooked, metrics.facilitator) : hooked
  life.onStop(() => service.stop())
  return { service, inProcess: paidFacilitator(service) }
}

/**
 * In the background: the first payment waits for it anyway, and a chain that is down now is retried then.
 * On one process, after the outbox replay (it may send the executor delegation, which takes a nonce).
 */
export function warmFacilitator({ after, log, life }: Core, facilitator: ComposedFacilitator): void {
  const warming = (after ?? Promise.resolve())
    .then(() => facilitator.service.warmUp())
    .catch((err) => log.warn({ err }, 'facilitator warm-up failed; it is retried on first use'))
  // stop() waits for it, so it never touches a closed store.
  life.onStop(() => warming)
}

/** The bazaar discovery listing at {facilitator_url}/discovery/resources: the platform's discoverable endpoints. */
export function composeBazaar(
  { chains, urls }: Core,
  facilitator: ComposedFacilitator,
  platform: PlatformService,
): BazaarService {
  return bazaarService({
    endpoints: platform.endpoints,
    supported: () => facilitator.service.supported(),
    evm: chains.evm,
    platformUrl: urls.platform,
  })
}
