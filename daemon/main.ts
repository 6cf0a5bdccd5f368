import type { ServerType } from '@hono/node-server'
import { Keypair } from '@solana/web3.js'
import { privateKeyToAccount } from 'viem/accounts'
import type { ResolvedConfig } from '../src/config/load.js'
import type { FlowName } from '../src/config/schema.js'
import { storePath } from '../src/config/paths.js'
import { partnerKeyStore } from './auth/partner-keys.js'
import { verdictCache } from './auth/verdict-cache.js'
import { freshCache } from './chains/evm/fresh-cache.js'
import { startChains } from './chains/start.js'
import { txSender, type TxSender } from './chains/evm/tx-sender.js'
import { createFacilitator } from './facilitator/service.js'
import { createApp } from './http/app.js'
import { createApiServer } from './http/api-server.js'
import { loadServiceKeys } from './keys/service-keys.js'
import { createLogger } from './logger.js'
import type { DaemonUrls, Services } from './services.js'
import { solDeps } from './sol/deps.js'
import { openStore } from './store/db.js'
import { prepareDataDir } from './startup/data-dir.js'
import { startupError } from './startup/failure.js'
import { ownerOnlyUmask } from './startup/owner-only.js'
import { assertPortFree } from './startup/ports.js'
import { swapInflight } from './swap/relay-swap.js'
import { profiles } from '../src/networks/registry.js'

export type Daemon = { urls: DaemonUrls; services: Services; stop(): Promise<void> }

export type StartDaemonOptions = { onProgress?: (step: string) => void }

/**
 * The composition root: config -> store -> keys -> chains -> services -> HTTP.
 * Everything started here is stopped by the one `stop()` it returns, in reverse order, once.
 */
export async function startDaemon(config: Readonly<ResolvedConfig>, opts: StartDaemonOptions = {}): Promise<Daemon> {
  const progress = opts.onProgress ?? (() => {})
  // Before anything is created or touched: owner-only modes, then the data dir checked and locked.
  ownerOnlyUmask()
  const lock = prepareDataDir(config.dataDir, { fresh: Boolean(config.fresh) })
  let opened
  try {
    if (config.port) await assertPortFree(config.host, config.port, 'the API, --port')
    const log = createLogger(config.dataDir, config.logLevel)
    opened = { log, keys: loadServiceKeys(config), db: openStore(storePath(config.dataDir)) }
  } catch (e) {
    lock.release()
    throw startupError(e, config)
  }
  const { log, keys, db } = opened
  const cleanups: Array<() => Promise<void> | void> = [() => lock.release(), () => db.close(), () => log.flush()]
  const stop = onceAsync(async () => {
    for (const fn of cleanups.reverse()) await fn()
  })
  try {
    const chains = await startChains({ config, keys, db, progress })
    cleanups.push(chains.stop)
    const profile = profiles[config.profile]
    const partnerKeys = partnerKeyStore(db, config.auth.keyPrefix)
    const senders = new Map<string, TxSender>()
    const sender = (network: string, role: 'solver' | 'facilitator') => {
      const id = `${network}:${role}`
      let sx = senders.get(id)
      if (!sx) senders.set(id, (sx = txSender(chains.evm[network]!, role === 'solver' ? keys.solver : keys.facilitator)))
      return sx
    }
    const flowEnabled = (flow: FlowName) => (flow === 'faucet' && config.profile !== 'local' ? false : config.flows[flow] ?? true)
    // The domain services below take the whole bag, so they are added once the rest of it exists.
    const services = {
      config, log, db, keys, partnerKeys, flowEnabled, sender,
      verdicts: verdictCache({ lookup: (key) => partnerKeys.lookup(key) }),
      evm: chains.evm,
      base: chains.evm[profile.base]!,
      radius: chains.evm[profile.radius]!,
      solana: chains.solana,
      accounts: {
        solver: privateKeyToAccount(keys.solver).address,
        facilitator: privateKeyToAccount(keys.facilitator).address,
        solanaSolver: Keypair.fromSecretKey(keys.solanaSolver).publicKey.toBase58(),
        solanaFacilitator: Keypair.fromSecretKey(keys.solanaFacilitator).publicKey.toBase58(),
      },
      reads: freshCache(250),
      faucet: chains.faucet,
      urls: { api: '', facilitator: '', platform: '', dashboard: '', rpc: chains.rpc },
      startedAt: Date.now(),
      sol: solDeps({ chain: chains.solana, solverKey: keys.solanaSolver, db, limits: config.limits, flowEnabled }),
      swapInflight: swapInflight({ base: chains.evm[profile.base]! }),
    } as Services
    services.facilitator = createFacilitator(services)
    progress('starting the HTTP server')
    const app = createApp(services)
    const server = await listen(app.fetch, config.host, config.port)
    cleanups.push(() => closeServer(server.server))
    const api = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`
    Object.assign(services.urls, { api, facilitator: `${api}/facilitator`, platform: api, dashboard: `${api}/dashboard` })
    lock.setUrl(api)
    log.info({ urls: services.urls, profile: config.profile }, 'parx daemon ready')
    // In the background: the first payment waits for it anyway, and a chain that is down now is retried then.
    const warming = services.facilitator.warmUp().catch((err) => log.warn({ err }, 'facilitator warm-up failed; it is retried on first use'))
    // stop() waits for it, so it never touches a closed store.
    cleanups.push(() => warming)
    return { urls: services.urls, services, stop }
  } catch (e) {
    await stop()
    throw startupError(e, config)
  }
}

function listen(fetch: (req: Request) => Response | Promise<Response>, hostname: string, port: number): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createApiServer(fetch)
    server.once('error', reject)
    server.listen(port, hostname, () => resolve({ server, port: (server.address() as { port: number }).port }))
  })
}

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
