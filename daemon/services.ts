import type { ParxConfig } from '../src/config/schema.js'
import type { AuthService, KeysService } from './auth/service.js'
import type { BackupService } from './backup/service.js'
import type { BazaarService } from './bazaar/service.js'
import type { DashboardService } from './dashboard/service.js'
import type { DiscoveryService } from './discovery/service.js'
import type { Facilitator } from './facilitator/service.js'
import type { MetricsSurface } from './metrics/registry.js'
import type { PlatformService } from './platform/service.js'
import type { SolDeps } from './sol/deps.js'
import type { SwapDeps } from './swap/deps.js'
import type { XchainService } from './xchain/service.js'

// Where the daemon answers and its own accounts: what discovery publishes, so they live beside it.
export type { DaemonUrls, PublicAccounts } from './discovery/types.js'

/** Mints test money; present on the local profile only. */
export type Faucet = {
  mint(p: { network: string; to: string; token: string; amount: string }): Promise<{ tx: string }>
}

/** The local faucet's surface (POST /api/local/faucet). */
export type FaucetSurface = {
  faucet?: Faucet
  profile: ParxConfig['profile']
  /** Where a request without `network` mints (the Base role's network). */
  defaultNetwork: string
}

/**
 * The facilitator's surface: payments on mainnet networks also need a partner key (docs/facilitator.md "x402
 * facilitator").
 */
export type FacilitatorSurface = { service: Facilitator; auth: AuthService }

/**
 * One service per HTTP surface, each built by the composition root (daemon/main.ts) from narrow
 * dependencies. A route declares its surface and gets that service only; private keys stay in
 * the services that sign (the tx senders, the Solana solver, the facilitator).
 */
export type Surfaces = {
  discovery: DiscoveryService
  swap: SwapDeps
  sol: SolDeps
  facilitator: FacilitatorSurface
  keys: KeysService
  faucet: FaucetSurface
  /** The agent payments platform (docs/platform-api.md). */
  platform: PlatformService
  /**
   * The dashboard at {dashboard_url}: SIWE sessions, partner keys, CLI user keys, agents (docs/dashboard.md
   * "Dashboard").
   */
  dashboard: DashboardService
  /**
   * Cross-chain orders (docs/cross-chain.md "Cross-chain orders"): build, status, the solver's operator routes
   * (daemon/xchain/README.md).
   */
  xchain: XchainService
  /** The bazaar discovery listing at {facilitator_url}/discovery/resources: discoverable seller endpoints. */
  bazaar: BazaarService
  /** Backups of the data dir for `parx backup` (POST /api/operator/backup; docs/operations.md "Backups"). */
  backup: BackupService
  /** Prometheus metrics: GET /metrics (daemon/metrics/registry.ts). */
  metrics: MetricsSurface
}

export type SurfaceName = keyof Surfaces
