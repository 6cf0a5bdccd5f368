import type { Logger } from 'pino'
import { privateKeyToAccount } from 'viem/accounts'
import type { ResolvedConfig } from '../../src/config/load.js'
import { storePath } from '../../src/config/paths.js'
import { surfaceGaps } from '../../src/config/problems.js'
import type { FlowName } from '../../src/config/schema.js'
import { profiles } from '../../src/networks/registry.js'
import { deploymentStore } from '../chains/embedded/deployments.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { type FreshCache, freshCache } from '../chains/evm/fresh-cache.js'
import { storeNonces } from '../chains/evm/nonce-source.js'
import { type Outbox, outboxStore } from '../chains/evm/outbox.js'
import { type TxSender, txSender } from '../chains/evm/tx-sender.js'
import { type Chains, startChains } from '../chains/start.js'
import type { DaemonUrls, PublicAccounts } from '../discovery/types.js'
import type { ServiceKeys } from '../keys/service-keys.js'
import { solanaKeypair } from '../keys/solana-keypair.js'
import type { DaemonMetrics } from '../metrics/registry.js'
import type { EarlyStart } from '../startup/early-start.js'
import { openStore, type Store } from '../store/store.js'
import type { Lifetime } from './lifetime.js'

/** What every surface is built from: the store, the chains and the per-process coordination. */
export type Ground = {
  config: Readonly<ResolvedConfig>
  log: Logger
  life: Lifetime
  keys: ServiceKeys
  store: Store
  outbox: Outbox
  /** One process: resolves once the previous run's outbox is replayed (new sends wait for it). Hosted: absent. */
  after?: Promise<void>
  /** Marks the first outbox replay done (the worker's, or at once on an api-only process). */
  replayed(): void
  chains: Chains
  base: EvmChain
  radius: EvmChain
  sender(network: string, role: 'solver' | 'facilitator'): TxSender
  gaps: Partial<Record<FlowName, string>>
  flowEnabled(flow: FlowName): boolean
  accounts: PublicAccounts
  reads: FreshCache
}

/** The ground plus what is known once the API listens, handed to each surface's compose function. */
export type Core = Ground & {
  urls: DaemonUrls
  metrics: DaemonMetrics
  /** Whether this process leads the worker duties now (false until it campaigns: ./worker.ts). */
  leading(): boolean
}

export type GroundParameters = {
  config: Readonly<ResolvedConfig>
  log: Logger
  life: Lifetime
  keys: ServiceKeys
  early: EarlyStart
  progress(step: string): void
  /** Background threads (the SQLite checkpointer, the chains' state writers) start once this resolves. */
  backgroundAfter: Promise<void>
}

/** The store, then the chains, then one transaction sender per (network, key). */
export async function openGround({
  config,
  log,
  life,
  keys,
  early,
  progress,
  backgroundAfter,
}: GroundParameters): Promise<Ground> {
  const store = await openStore({
    file: storePath(config.dataDir),
    url: config.store.url,
    checkpointsAfter: backgroundAfter,
    onIdleError: (err) => log.warn({ err }, 'a PostgreSQL store connection dropped; it is replaced on next use'),
  })
  life.onStop(() => store.close())
  // Every signed transaction is written to the outbox before it is broadcast (docs/internals.md "Durable
  // transactions"). On one process, what the previous run left is replayed before any new nonce
  // is taken, so new transactions never race the replayed ones for a nonce.
  const outbox = outboxStore(store)
  let replayed!: () => void
  const firstReplay = new Promise<void>((resolve) => (replayed = resolve))
  const after = config.store.url ? undefined : firstReplay
  const chains = await startChains({
    config,
    keys,
    anvils: early.anvils,
    deployments: deploymentStore(store),
    progress,
    outbox,
    after,
    backgroundAfter,
  })
  life.onStop(chains.stop)
  const profile = profiles[config.profile]

  // Per-process coordination: one sender per (network, key) so nonces never collide across routes.
  const senders = new Map<string, TxSender>()
  const sender = (network: string, role: 'solver' | 'facilitator') => {
    const id = `${network}:${role}`
    let sx = senders.get(id)
    const chain = chains.evm[network]!
    // Hosted, replicas may relay with the same key: its nonces come from the shared store.
    const nonces = config.store.url
      ? (address: string, seed: () => Promise<number>) => storeNonces(store, chain.chainId, address, seed)
      : undefined
    if (!sx)
      senders.set(
        id,
        (sx = txSender(chain, role === 'solver' ? keys.solver : keys.facilitator, {
          nonceSource: nonces,
          outbox,
          after,
          warn: (m) => log.warn(m),
        })),
      )
    return sx
  }
  // A surface missing a contract address is off, whatever PARX_FLOWS says (docs/hosting.md "Pointing at real
  // networks").
  const gaps = surfaceGaps(config)
  const flowEnabled = (flow: FlowName) =>
    flow === 'faucet' && config.profile !== 'local' ? false : !gaps[flow] && (config.flows[flow] ?? true)
  const accounts: PublicAccounts = {
    solver: privateKeyToAccount(keys.solver).address,
    facilitator: privateKeyToAccount(keys.facilitator).address,
    solanaSolver: solanaKeypair(keys.solanaSolver).publicKey.toBase58(),
    solanaFacilitator: solanaKeypair(keys.solanaFacilitator).publicKey.toBase58(),
  }
  return {
    config,
    log,
    life,
    keys,
    store,
    outbox,
    after,
    replayed,
    chains,
    base: chains.evm[profile.base]!,
    radius: chains.evm[profile.radius]!,
    sender,
    gaps,
    flowEnabled,
    accounts,
    reads: freshCache(250),
  }
}
