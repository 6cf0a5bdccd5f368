import type { ServerType } from '@hono/node-server'
import type { Hono } from 'hono'
import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ResolvedConfig } from '../src/config/load.js'
import type { FlowName } from '../src/config/schema.js'
import { storePath } from '../src/config/paths.js'
import { createApiServer, type ApiFetch, type ApiServerOptions } from './http/api-server.js'
import { drainable } from './http/drain.js'
import { startupError } from './startup/failure.js'
import { startEarly, type EarlyStart } from './startup/early-start.js'
import { profiles } from '../src/networks/registry.js'
import { partnerKeyStore } from './auth/partner-keys.js'
import { authService, keysService } from './auth/service.js'
import { HOSTED_VERDICT_TTLS, verdictCache } from './auth/verdict-cache.js'
import { postgresKeyChanges } from './auth/key-changes.js'
import { deploymentStore } from './chains/embedded/deployments.js'
import type { EvmChain } from './chains/evm/chain.js'
import { freshCache, type FreshCache } from './chains/evm/fresh-cache.js'
import { txSender, type TxSender } from './chains/evm/tx-sender.js'
import { storeNonces } from './chains/evm/nonce-source.js'
import { fillNonceGaps } from './chains/evm/nonce-gaps.js'
import { outboxStore } from './chains/evm/outbox.js'
import { replayOutbox } from './chains/evm/outbox-replay.js'
import type { SolanaChain } from './chains/solana/chain.js'
import { startChains } from './chains/start.js'
import { discoveryService } from './discovery/service.js'
import { createFacilitator } from './facilitator/service.js'
import { receiverAuthorizer } from './facilitator/evm/batch-settlement/authorizer.js'
import { withHooks, type HookedFacilitator } from './facilitator/hooks.js'
import { bazaarService } from './bazaar/service.js'
import { BAZAAR } from '../src/sdk/x402/bazaar.js'
import { backupService } from './backup/service.js'
import { webhookQueue } from './seller/webhooks/queue.js'
import { webhookRetention } from './seller/webhooks/retention.js'
import { createApp } from './http/app.js'
import { egressGuard } from './egress/guard.js'
import { loginLimiter } from './dashboard/login-limiter.js'
import { apiLimiter } from './http/middleware/api-limiter.js'
import { forwardedHeadersTrusted, trustedProxies } from './http/client-address.js'
import { loadServiceKeys, type ServiceKeys } from './keys/service-keys.js'
import { solanaKeypair } from './keys/solana-keypair.js'
import { openLog, type DaemonLog } from './logger.js'
import type { DaemonUrls, PublicAccounts, Surfaces } from './services.js'
import { solDeps } from './sol/deps.js'
import { openStore, type Store } from './store/store.js'
import { platformService, type PlatformService } from './platform/service.js'
import { recheckPendingSpends } from './buyer/pending-spends.js'
import { agentHoldDuty } from './buyer/holds/refresh.js'
import { aaRuntime, type AaRuntime } from './buyer/aa/runtime.js'
import { anvilFeeTopUp } from './buyer/send.js'
import { platformStore } from './platform/store.js'
import { packageVersion } from '../src/cli/package-root.js'
import { swapInflight } from './swap/relay-swap.js'
import { routes, workerRoutes } from './http/routes/index.js'
import { servedFlows } from './http/served-flows.js'
import { workerDuties } from './worker/duties.js'
import { channelClaimDuty } from './seller/batch-settlement/claim-duty.js'
import { holdSweepDuty } from './seller/hold-duty.js'
import { recordChannelSettlement } from './seller/batch-settlement/settlements.js'
import { recordHoldVoid } from './seller/hold-voids.js'
import { paidFacilitator } from './seller/paid-facilitator.js'
import { postgresLeadership, soleLeadership, type Leadership } from './worker/leader.js'
import { surfaceGaps } from '../src/config/problems.js'
import { dashboardService } from './dashboard/service.js'
import { sessionAuth } from './dashboard/session-auth.js'
import { sessionStore } from './dashboard/sessions.js'
import { siwe } from './dashboard/siwe.js'
import { dashboardOrigin } from './dashboard/origin.js'
import { configuredOrigin } from '../src/config/public-origin.js'
import { rpcOrigins } from '../src/config/rpc-origin.js'
import { userKeys } from './platform/user-keys.js'
import { createXchain, type XchainParts } from './xchain/compose.js'
import { createMetrics } from './metrics/registry.js'
import { instrumentFacilitator } from './metrics/facilitator.js'
import { instrumentPlatform } from './metrics/platform.js'
import { listenMetrics, metricsServer } from './metrics/server.js'
import type { Duties } from './worker/leader.js'

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
 * The composition root: config -> store -> keys -> chains -> listen -> services -> HTTP app.
 * Everything started here is stopped by the one `stop()` it returns, in reverse order, once.
 */
export async function startDaemon(config: Readonly<ResolvedConfig>, opts: StartDaemonOptions = {}): Promise<Daemon> {
  const progress = opts.onProgress ?? (() => {})
  // Refused before anything is created or started; then the data dir locked and the chains spawned.
  const early = await (opts.early ?? startEarly(config))
  let logFile: DaemonLog | undefined
  let keys: ServiceKeys
  try {
    logFile = openLog(config.dataDir, config.logLevel, { maxBytes: config.log.maxMegabytes * 1024 * 1024, keep: config.log.files })
    keys = loadServiceKeys(config)
  } catch (e) {
    await logFile?.close()
    await early.release()
    throw startupError(e, config)
  }
  const { log, close: closeLog } = logFile
  // Last at a stop: the log closed (its file and pino's exit hook), then the data dir and the umask given back.
  const cleanups: Array<() => Promise<void> | void> = [() => early.release(), closeLog]
  // Run first and together at a stop: the HTTP drain and the leadership hand-over (./http/drain.ts).
  const firstAtStop: Array<() => Promise<unknown>> = []
  const stop = onceAsync(async () => {
    await Promise.all(firstAtStop.map((fn) => fn().catch((err) => log.warn({ err }, 'stopping: a first step failed; stopping the rest'))))
    for (const fn of cleanups.reverse()) await fn()
  })
  // Background threads (the SQLite checkpointer, the embedded chains' state writers) start after the
  // ready line: each thread's start costs ~0.2 s of CPU, which the start competed with on two cores.
  let startBackground!: () => void
  const backgroundAfter = new Promise<void>((resolve) => (startBackground = resolve))
  try {
    const store = await openStore({
      file: storePath(config.dataDir), url: config.store.url, checkpointsAfter: backgroundAfter,
      onIdleError: (err) => log.warn({ err }, 'a PostgreSQL store connection dropped; it is replaced on next use'),
    })
    cleanups.push(() => store.close())
    // Every signed transaction is written to the outbox before it is broadcast (docs/internals.md "Durable
    // transactions"). On one process, what the previous run left is replayed before any new nonce
    // is taken, so new transactions never race the replayed ones for a nonce.
    const outbox = outboxStore(store)
    let replayed!: () => void
    const firstReplay = new Promise<void>((resolve) => (replayed = resolve))
    const after = config.store.url ? undefined : firstReplay
    const chains = await startChains({ config, keys, anvils: early.anvils, deployments: deploymentStore(store), progress, outbox, after, backgroundAfter })
    cleanups.push(chains.stop)
    const profile = profiles[config.profile]
    const base = chains.evm[profile.base]!
    const radius = chains.evm[profile.radius]!

    // Per-process coordination, each behind its port: one sender per (network, key) so nonces never
    // collide across routes, the verdict cache, the in-flight orders, the rate-limit buckets.
    const senders = new Map<string, TxSender>()
    const sender = (network: string, role: 'solver' | 'facilitator') => {
      const id = `${network}:${role}`
      let sx = senders.get(id)
      const chain = chains.evm[network]!
      // Hosted, replicas may relay with the same key: its nonces come from the shared store.
      const nonces = config.store.url ? (address: string, seed: () => Promise<number>) => storeNonces(store, chain.chainId, address, seed) : undefined
      if (!sx) senders.set(id, (sx = txSender(chain, role === 'solver' ? keys.solver : keys.facilitator, { nonceSource: nonces, outbox, after, warn: (m) => log.warn(m) })))
      return sx
    }
    // A surface missing a contract address is off, whatever PARX_FLOWS says (docs/hosting.md "Pointing at real networks").
    const gaps = surfaceGaps(config)
    const flowEnabled = (flow: FlowName) => (flow === 'faucet' && config.profile !== 'local' ? false : !gaps[flow] && (config.flows[flow] ?? true))
    const accounts: PublicAccounts = {
      solver: privateKeyToAccount(keys.solver).address,
      facilitator: privateKeyToAccount(keys.facilitator).address,
      solanaSolver: solanaKeypair(keys.solanaSolver).publicKey.toBase58(),
      solanaFacilitator: solanaKeypair(keys.solanaFacilitator).publicKey.toBase58(),
    }
    const reads = freshCache(250)
    const partnerKeys = partnerKeyStore(store, config.auth.keyPrefix)
    const verdicts = verdictCache({ lookup: (key) => partnerKeys.lookup(key), ...(config.store.url ? HOSTED_VERDICT_TTLS : {}) })
    const auth = authService({ auth: config.auth, operatorToken: keys.operatorToken, verdicts, touch: (key) => partnerKeys.touch(key), lookup: (key) => partnerKeys.lookup(key) })

    // The URLs are known once the port is: listen first, hand requests to the app once it exists
    // (it is built below without an await, so no request arrives before it).
    progress('starting the HTTP server')
    let app: Hono | undefined
    // HSTS on every answer when the public origin is https (docs/hosting.md "Hosting safely").
    const publicOrigin = configuredOrigin(config)
    const server = await listen((req, env) => (app ? app.fetch(req, env) : new Response(null, { status: 503 })), config.host, config.port, { hsts: publicOrigin?.https })
    cleanups.push(() => closeServer(server.server))
    // A stop answers what is in flight (within http.drainSeconds) before anything it needs is stopped.
    const http = drainable(server.server as import('node:http').Server)
    firstAtStop.push(async () => {
      const d = await http.drain(config.http.drainSeconds * 1000)
      if (d.inFlightAtStart || d.cut) log.info(d, d.cut ? 'stopping: requests still in flight after http.drainSeconds were cut' : 'stopping: requests in flight were answered')
    })
    const api = httpOrigin(config.host, server.port)
    const urls: DaemonUrls = { api, facilitator: `${api}/facilitator`, platform: api, dashboard: `${api}/dashboard`, rpc: chains.rpc }

    // The platform's ERC-4337 stack on the local Base chain: deployed and alto started on first use,
    // so the ready line never waits for it; stopped with the daemon.
    const platformAa: Record<string, AaRuntime> = {}
    if (config.profile === 'local') {
      const rt = aaRuntime({
        chain: base, deployerKey: keys.deployer, deployments: deploymentStore(store), log,
        isAgentWallet: (address) => platformStore(store, undefined).isAgentWallet(address),
      })
      platformAa[base.key] = rt
      cleanups.push(() => rt.stop())
    }
    // This daemon's own registry (docs/operations.md "Metrics"); with metrics off, nothing records.
    const metrics = createMetrics({ enabled: config.metrics.enabled })
    const hooked = withHooks(createFacilitator({
      profile: config.profile, evm: chains.evm, solana: chains.solana, log, store, accounts,
      keys: { facilitator: keys.facilitator, solanaFacilitator: keys.solanaFacilitator, batchReceiverAuthorizer: config.keys.batchReceiverAuthorizer as `0x${string}` | undefined },
      sender: (network) => sender(network, 'facilitator'), receiptTimeoutMs: config.facilitator.receiptTimeoutMs,
      extensions: [BAZAAR],
      eip6492Factories: config.facilitator.eip6492Factories as Address[],
      metrics: metrics.facilitator,
    }), log)
    const facilitator = metrics.facilitator ? instrumentFacilitator(hooked, metrics.facilitator) : hooked
    cleanups.push(() => facilitator.stop())
    const swapDeps: Surfaces['swap'] = { base, limits: config.limits, flowEnabled, solver: accounts.solver, sender: sender(base.key, 'solver'), reads, inflight: swapInflight({ base }, config.store.url ? store : undefined), outbox, metrics: metrics.swap }
    // Replicas on one PostgreSQL store tell each other about key changes at once (LISTEN/NOTIFY).
    const keyChanges = config.store.url
      ? postgresKeyChanges({
        url: config.store.url, store, forget: (hash) => (hash ? verdicts.forget(hash) : verdicts.clear()),
        onError: (err) => log.warn({ err }, 'partner key change announcements: connection lost; verdict TTLs apply until it is back'),
      })
      : undefined
    if (keyChanges) cleanups.push(() => keyChanges.stop())
    const keyService = keysService({ keys: partnerKeys, verdicts, publish: keyChanges?.publish })
    // User-directed requests (pay, upstreams, webhooks) leave through one guard: strict off the local profile (docs/hosting.md "Hosting safely").
    const egress = egressGuard({ strict: config.profile !== 'local' || config.egress.strict, allow: config.egress.allow })
    cleanups.push(() => egress.close())
    // The facilitator's own calls in process, for a caller acting as `receiver`: paid endpoints and the claim duty.
    const inProcessFacilitator = paidFacilitator(facilitator)
    const platform = platformService({
      egress,
      profile: config.profile, version: packageVersion(), facilitatorUrl: urls.facilitator, platformUrl: urls.platform, store, evm: chains.evm, walletKey: keys.platformWallet,
      // Paid endpoints call the facilitator in process, as their payTo where the platform holds it (a delegated refund needs the receiver).
      paidFacilitator: inProcessFacilitator,
      batchReceiverAuthorizer: receiverAuthorizer({ profile: config.profile, keys: { facilitator: keys.facilitator, batchReceiverAuthorizer: config.keys.batchReceiverAuthorizer as `0x${string}` | undefined } })?.address,
      previousWalletKeys: config.keys.platformWalletPrevious,
      aa: platformAa, swap: swapDeps, topUpFees: config.profile === 'local' ? { [radius.key]: anvilFeeTopUp(radius) } : {}, quotas: config.quotas, log,
      payValiditySeconds: config.pay.validitySeconds,
      preferAuthCapture: config.pay.preferAuthCapture,
      unfreezeRequiresDashboard: config.platform.unfreezeRequiresDashboard,
      approvalTtlSeconds: config.platform.approvalTtlSeconds,
      channelSettings: config.pay.channels,
      receiptKey: keys.receipt,
    })
    // Pays still work without it; what they lack (a receipt an auditor can check) is said once, at start.
    if (!keys.receipt && config.role !== 'worker') log.warn('no receipt key (PARX_RECEIPT_KEY / keys.receipt): pays carry no signed receipt and the manifest names no receipt signer')
    // Settlement webhooks are drained by every serving process (a row is leased before it is sent).
    if (config.role !== 'worker') {
      platform.webhooks.delivery.start()
      cleanups.push(() => platform.webhooks.delivery.stop())
    }
    const sessions = sessionStore(store)
    // X-Forwarded-Proto counts (local profile without a public origin) only through a trusted proxy.
    const origin = dashboardOrigin(publicOrigin, forwardedHeadersTrusted)
    // Only the worker leader moves cross-chain orders; `leadership` exists once the duties are campaigned for below.
    let leadership: Leadership | undefined
    const xchain = createXchain({
      store, evm: chains.evm, base, solana: chains.solana, keys, evmSolver: accounts.solver, baseSender: sender(base.key, 'solver'),
      limits: config.limits, timing: config.xchain, log, leading: () => leadership?.isLeader() ?? false, storeUrl: config.store.url,
    })
    cleanups.push(() => xchain.stop())
    const surfaces: Surfaces = {
      discovery: discoveryService({ config, gaps, served: servedFlows(routes), flowEnabled, base, radius, evm: chains.evm, solana: chains.solana, accounts, urls, pingStore: () => store.ping(), draining: () => http.draining,
        process: { role: config.role, hosted: Boolean(config.store.url), leading: config.role === 'api' ? undefined : () => leadership?.isLeader() ?? false } }),
      swap: swapDeps,
      sol: solDeps({ chain: chains.solana, solverKey: keys.solanaSolver, store, limits: config.limits, flowEnabled }),
      facilitator: { service: facilitator, auth },
      keys: keyService,
      faucet: { faucet: chains.faucet, profile: config.profile, defaultNetwork: base.key },
      platform: metrics.platform ? instrumentPlatform(platform, metrics.platform) : platform,
      // Sign-in is on the deployment's Base chain; contract wallets are checked there (ERC-1271/6492).
      dashboard: dashboardService({
        store, sessions, partnerKeys, keys: keyService, platform, userKeys: userKeys(store), replicas: Boolean(config.store.url),
        siwe: siwe({ store, chainIds: [base.chainId], verifyContractSignature: (m) => base.client.verifyMessage(m) }),
        // Sign-in per client network, shared by replicas on PostgreSQL (daemon/dashboard/login-limiter.ts).
        loginLimiter: loginLimiter(store, log),
        origin,
      }),
      xchain: xchain.service,
      bazaar: bazaarService({ endpoints: platform.endpoints, supported: () => facilitator.supported(), evm: chains.evm, platformUrl: urls.platform }),
      // The local profile's EVM chains are embedded (anvil): their state goes into the backup.
      backup: backupService({ dataDir: config.dataDir, sqlite: !config.store.url, embedded: config.profile === 'local' ? chains.evm : {}, parxVersion: packageVersion() }),
      metrics,
    }
    // In the background: the first payment waits for it anyway, and a chain that is down now is retried then.
    // On one process, after the outbox replay (it may send the executor delegation, which takes a nonce).
    const warming = (after ?? Promise.resolve()).then(() => facilitator.warmUp()).catch((err) => log.warn({ err }, 'facilitator warm-up failed; it is retried on first use'))
    // stop() waits for it, so it never touches a closed store.
    cleanups.push(() => warming)
    let worker: DaemonParts['worker']
    if (config.role !== 'api') {
      // Exactly one process runs the worker duties: on SQLite the only one, on PostgreSQL the
      // holder of the advisory lock (a standby takes over when it dies).
      // Hosted, the relayer keys' nonces come from the store's shared counter: a nonce a killed process took and never sent is filled.
      const sharedSenders = () => Object.values(chains.evm).flatMap((chain) => (['solver', 'facilitator'] as const).map((role) => ({ chain, sender: sender(chain.key, role) })))
      const replay = async (select: { idleForMs?: number }) => {
        try {
          const result = await replayOutbox(outbox, chains.evm, log, select)
          if (config.store.url && select.idleForMs !== undefined) await fillNonceGaps({ outbox, senders: sharedSenders(), log, idleForMs: select.idleForMs })
          return result
        } finally {
          replayed()
        }
      }
      const { duties: reconcile, firstPass } = workerDuties({
        facilitator, replay, log, mode: config.store.url ? 'hosted' : 'embedded',
        pendingSpends: () => recheckPendingSpends({ spends: platform.spends, evm: chains.evm, log }),
      })
      // The leader's duties: reconciliation, then the cross-chain solver worker beside it.
      const duties: Duties = async () => {
        const stopReconcile = await reconcile()
        const stopSolver = await xchain.worker.duty()
        // Finished webhook deliveries past webhooks.retentionDays, hourly (docs/operations.md "Retention and log size").
        const stopPruning = webhookRetention({ queue: webhookQueue(store), retentionDays: config.webhooks.retentionDays, log })
        // Batch-settlement channels paying the platform's endpoints: claimed and swept on a schedule (docs/platform-api.md "Batch settlement").
        const sc = config.sellerChannels
        const stopClaims = await channelClaimDuty({
          // In process, as the paid endpoints call it: a worker serves no /facilitator route, and off the
          // local profile that route wants a partner key. Claims and sweeps ask nothing of the caller
          // (our authorizer signs the claim, a sweep is permissionless), so no receiver is named.
          channels: platform.sellerChannels, facilitator: inProcessFacilitator(undefined), log, everyMs: sc.claimEverySeconds * 1000,
          metrics: metrics.channelClaims,
          policy: { minUnclaimed: BigInt(sc.claimMinUnclaimed), maxAgeMs: sc.claimMaxAgeSeconds * 1000 },
          onSettled: (s) => recordChannelSettlement({ endpoints: platform.endpoints, webhooks: platform.webhooks, evm: chains.evm, platformUrl: urls.platform }, s),
        })()
        // auth-capture holds no request will finish: voided, so the buyer is whole before any deadline (docs/platform-api.md "Auth-capture").
        const stopHoldSweep = await holdSweepDuty({
          holds: platform.sellerHolds, facilitatorFor: (payTo) => inProcessFacilitator(payTo), log,
          // The seller hears of the sweep's voids as of any other (payment.voided).
          onVoided: (hold, result) => recordHoldVoid({ endpoints: platform.endpoints, webhooks: platform.webhooks, platformUrl: urls.platform }, hold, result),
        })()
        // Agents' own holds: what sellers captured, voided or refunded comes back to the limits; a hold left past its capture deadline is reclaimed (docs/platform-api.md "Paying with auth-capture").
        const stopAgentHolds = await agentHoldDuty({ holds: platform.agentHolds, evm: chains.evm, log, reclaim: (h) => platform.reclaimHold(h) })()
        return async () => {
          await stopAgentHolds()
          await stopHoldSweep()
          await stopClaims()
          await stopPruning()
          await stopSolver()
          await stopReconcile()
        }
      }
      const onError = (err: Error) => log.warn({ err }, 'worker leadership: error')
      const led = config.store.url
        ? postgresLeadership({ url: config.store.url, duties, onError, onChange: (leading) => log.info({ leading }, leading ? 'leading the worker duties' : 'no longer leading the worker duties') })
        : soleLeadership(duties, onError)
      leadership = led
      cleanups.push(() => led.stop())
      // At once at a stop, beside the drain: a standby takes the lock now, not after a lease.
      firstAtStop.push(() => led.stop())
      worker = { leadership: led, firstPass }
      // One process per data dir: nothing is answered before what the previous run left is
      // reconciled (transactions replayed, settlements decided), so no answer names a lost transaction.
      if (!config.store.url) await firstPass
    } else {
      replayed()
    }
    // Read when scraped, never polled: the store's rows, the leadership, each network's head.
    metrics.observe({
      store, log, leading: () => leadership?.isLeader() ?? false,
      heads: [
        ...Object.values(chains.evm).map((c) => ({ network: c.key, head: async () => BigInt((await c.client.request({ method: 'eth_blockNumber' })) as string) })),
        { network: chains.solana.key, head: () => chains.solana.connection.getSlot() },
      ],
    })
    if (config.metrics.enabled && config.metrics.port !== undefined) {
      const ms = metricsServer(metrics)
      const port = await listenMetrics(ms, config.metrics.host, config.metrics.port)
      cleanups.push(() => closeServer(ms))
      urls.metrics = `${httpOrigin(config.metrics.host, port)}/metrics`
    }
    app = createApp({ metrics: metrics.http, surfaces, auth, log, limiter: apiLimiter(config, store, log), proxies: trustedProxies(config.http.trustedProxies), flowEnabled, callers: surfaces.platform, sessions: sessionAuth(sessions, origin), routes: config.role === 'worker' ? workerRoutes : undefined })
    early.lock.setUrl(api)
    log.info({ urls: { ...urls, rpc: rpcOrigins(urls.rpc) }, profile: config.profile }, 'parx daemon ready')
    // After the ready line, never before it: the first send then finds alto up (a failure is
    // logged by the runtime and retried on that send).
    if (config.bundler.prestart && config.role !== 'worker') for (const rt of Object.values(platformAa)) rt.stack().catch(() => {})
    // On the next turn, once the caller has printed the ready line.
    setImmediate(startBackground)
    const services: DaemonParts = { config, store, keys, evm: chains.evm, base, radius, solana: chains.solana, accounts, reads, sender, facilitator, platform: surfaces.platform, worker, xchain }
    return { urls, services, stop }
  } catch (e) {
    await stop()
    throw startupError(e, config)
  }
}

function listen(fetch: ApiFetch, hostname: string, port: number, opts: ApiServerOptions): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createApiServer(fetch, opts)
    server.once('error', reject)
    server.listen(port, hostname, () => resolve({ server, port: (server.address() as { port: number }).port }))
  })
}

/** `http://host:port`, an IPv6 host in brackets. */
const httpOrigin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    // Keep-alive sockets would hold close() open; they carry no work once we are stopping.
    ;(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.()
  })
}

function onceAsync(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined
  return () => (p ??= fn())
}

