import type { Hono } from 'hono'
import type { ResolvedConfig } from '../src/config/load.js'
import { rpcOrigins } from '../src/config/rpc-origin.js'
import type { EvmChain } from './chains/evm/chain.js'
import type { FreshCache } from './chains/evm/fresh-cache.js'
import type { TxSender } from './chains/evm/tx-sender.js'
import type { SolanaChain } from './chains/solana/chain.js'
import { composeAccess, composeKeys } from './compose/access.js'
import { composeBackup } from './compose/backup.js'
import { type Core, openGround } from './compose/core.js'
import { composeDashboard } from './compose/dashboard.js'
import { composeDiscovery } from './compose/discovery.js'
import { composeBazaar, composeFacilitator, warmFacilitator } from './compose/facilitator.js'
import { listenApi } from './compose/http.js'
import { lifetime } from './compose/lifetime.js'
import { composeMetrics } from './compose/metrics.js'
import { composeAa, composePlatform } from './compose/platform.js'
import { composeSol, composeSwap } from './compose/swap.js'
import { composeWorker } from './compose/worker.js'
import { composeXchain } from './compose/xchain.js'
import { sessionAuth } from './dashboard/session-auth.js'
import type { HookedFacilitator } from './facilitator/hooks.js'
import { createApp } from './http/app.js'
import { trustedProxies } from './http/client-address.js'
import { apiLimiter } from './http/middleware/api-limiter.js'
import { workerRoutes } from './http/routes/index.js'
import { loadServiceKeys, type ServiceKeys } from './keys/service-keys.js'
import { type DaemonLog, openLog } from './logger.js'
import { instrumentPlatform } from './metrics/platform.js'
import { createMetrics } from './metrics/registry.js'
import type { PlatformService } from './platform/service.js'
import type { DaemonUrls, PublicAccounts, Surfaces } from './services.js'
import { type EarlyStart, startEarly } from './startup/early-start.js'
import { startupError } from './startup/failure.js'
import type { Store } from './store/store.js'
import type { Leadership } from './worker/leader.js'
import type { XchainParts } from './xchain/compose.js'

/**
 * The composition's parts, for tests and operator tooling that run beside the daemon. Routes never
 * see this: each gets its surface's service only (daemon/services.ts).
 */
export type DaemonParts = {
  config: Readonly<ResolvedConfig>
  store: Store
  keys: ServiceKeys
  evm: Record<string, EvmChain>
  base: EvmChain
  radius: EvmChain
  solana: SolanaChain
  accounts: PublicAccounts
  reads: FreshCache
  sender(network: string, role: 'solver' | 'facilitator'): TxSender
  /** The facilitator, with its verify and settle hooks (daemon/facilitator/hooks.ts) for embedders and tests. */
  facilitator: HookedFacilitator
  /** The agent payments platform's service (its store, ledger and sends). */
  platform: PlatformService
  /** Present when this process campaigns for the worker duties (role worker or all). */
  worker?: { leadership: Leadership; firstPass: Promise<void> }
  /** Cross-chain: the rails, the solver worker, the three attestors (fault tests switch their mode). */
  xchain: XchainParts
}

export type Daemon = { urls: DaemonUrls; services: DaemonParts; stop(): Promise<void> }

export type StartDaemonOptions = {
  onProgress?: (step: string) => void
  /** The first steps, taken already while this module loaded (daemon/entry.ts); taken here otherwise. */
  early?: Promise<EarlyStart>
}

/**
 * The composition root: config -> store -> keys -> chains -> listen -> services -> HTTP app, each
 * surface built by its own function in ./compose/. Everything started here is stopped by the one
 * `stop()` it returns, in reverse order, once.
 */
export async function startDaemon(config: Readonly<ResolvedConfig>, opts: StartDaemonOptions = {}): Promise<Daemon> {
  const progress = opts.onProgress ?? (() => {})
  // Refused before anything is created or started; then the data dir locked and the chains spawned.
  const early = await (opts.early ?? startEarly(config))
  let logFile: DaemonLog | undefined
  let keys: ServiceKeys
  try {
    logFile = openLog(config.dataDir, config.logLevel, {
      maxBytes: config.log.maxMegabytes * 1024 * 1024,
      keep: config.log.files,
    })
    keys = loadServiceKeys(config)
  } catch (e) {
    await logFile?.close()
    await early.release()
    throw startupError(e, config)
  }
  const { log } = logFile
  // Last at a stop: the log closed (its file and pino's exit hook), then the data dir and the umask given back.
  const { life, stop } = lifetime(log, [() => early.release(), logFile.close])
  // Background threads (the SQLite checkpointer, the embedded chains' state writers) start after the
  // ready line: each thread's start costs ~0.2 s of CPU, which the start competed with on two cores.
  let startBackground!: () => void
  const backgroundAfter = new Promise<void>((resolve) => (startBackground = resolve))
  try {
    const ground = await openGround({ config, log, life, keys, early, progress, backgroundAfter })
    const access = composeAccess(ground)
    // The URLs are known once the port is: listen first, hand requests to the app once it exists
    // (it is built below without an await, so no request arrives before it).
    progress('starting the HTTP server')
    let app: Hono | undefined
    const api = await listenApi({
      config,
      log,
      life,
      rpc: ground.chains.rpc,
      fetch: (req, env) => (app ? app.fetch(req, env) : new Response(null, { status: 503 })),
    })
    // Only the worker leader moves cross-chain orders; the leadership exists once the duties are campaigned for below.
    let leadership: Leadership | undefined
    // This daemon's own registry (docs/operations.md "Metrics"); with metrics off, nothing records.
    const metrics = createMetrics({ enabled: config.metrics.enabled })
    const core: Core = { ...ground, urls: api.urls, metrics, leading: () => leadership?.isLeader() ?? false }

    const aa = composeAa(core)
    const facilitator = composeFacilitator(core)
    const swap = composeSwap(core)
    const keysSurface = composeKeys(core, access)
    const platform = composePlatform(core, { aa, swap, facilitator })
    const xchain = composeXchain(core)
    const dashboard = composeDashboard(core, { access, keys: keysSurface, platform, publicOrigin: api.publicOrigin })
    const surfaces: Surfaces = {
      discovery: composeDiscovery(core, api.http),
      swap,
      sol: composeSol(core),
      facilitator: { service: facilitator.service, auth: access.auth },
      keys: keysSurface,
      faucet: { faucet: ground.chains.faucet, profile: config.profile, defaultNetwork: ground.base.key },
      platform: metrics.platform ? instrumentPlatform(platform, metrics.platform) : platform,
      dashboard: dashboard.service,
      xchain: xchain.service,
      bazaar: composeBazaar(core, facilitator, platform),
      backup: composeBackup(core),
      metrics,
    }
    warmFacilitator(core, facilitator)
    const worker = await composeWorker(core, { facilitator, platform, xchain, onLeadership: (l) => (leadership = l) })
    await composeMetrics(core)
    app = createApp({
      metrics: metrics.http,
      surfaces,
      auth: access.auth,
      log,
      limiter: apiLimiter(config, ground.store, log),
      proxies: trustedProxies(config.http.trustedProxies),
      flowEnabled: ground.flowEnabled,
      callers: surfaces.platform,
      sessions: sessionAuth(dashboard.sessions, dashboard.origin),
      routes: config.role === 'worker' ? workerRoutes : undefined,
    })
    early.lock.setUrl(api.urls.api)
    log.info({ urls: { ...api.urls, rpc: rpcOrigins(api.urls.rpc) }, profile: config.profile }, 'parx daemon ready')
    // After the ready line, never before it: the first send then finds alto up (a failure is
    // logged by the runtime and retried on that send).
    if (config.bundler.prestart && config.role !== 'worker')
      for (const rt of Object.values(aa)) rt.stack().catch(() => {})
    // On the next turn, once the caller has printed the ready line.
    setImmediate(startBackground)
    const { store, chains, base, radius, accounts, reads, sender } = ground
    const services: DaemonParts = {
      config,
      store,
      keys,
      evm: chains.evm,
      base,
      radius,
      solana: chains.solana,
      accounts,
      reads,
      sender,
      facilitator: facilitator.service,
      platform: surfaces.platform,
      worker,
      xchain,
    }
    return { urls: api.urls, services, stop }
  } catch (e) {
    await stop()
    throw startupError(e, config)
  }
}
