import type { Hex } from 'viem'
import type { ResolvedConfig } from '../../src/config/load.js'
import { storePath } from '../../src/config/paths.js'
import { BaseError, UsageError } from '../../src/errors/index.js'
import { networks, profiles } from '../../src/networks/registry.js'
import type { ServiceKeys } from '../keys/service-keys.js'
import { localFaucet } from '../local/faucet.js'
import { registerSecretUrl } from '../redact.js'
import type { Faucet } from '../services.js'
import type { DeploymentStore } from './embedded/deployments.js'
import type { LocalAnvils } from './embedded/local-anvils.js'
import { type LocalEvm, startLocalEvm } from './embedded/local-evm.js'
import { type LocalSolana, startLocalSolana } from './embedded/local-solana.js'
import { type EvmChain, evmChain } from './evm/chain.js'
import type { Outbox } from './evm/outbox.js'
import { type SolanaChain, solanaChain } from './solana/chain.js'

export type Chains = {
  evm: Record<string, EvmChain>
  solana: SolanaChain
  /** RPC URL of every network, for the ready line and /api/config. */
  rpc: Record<string, string>
  faucet?: Faucet
  stop(): Promise<void>
}

export type StartChainsParameters = {
  config: Readonly<ResolvedConfig>
  keys: ServiceKeys
  /** The local profile's anvils, spawned by the start's first steps (daemon/startup/early-start.ts). */
  anvils: LocalAnvils | undefined
  /** Where the embedded chains record (and find again) what they deployed. */
  deployments: DeploymentStore
  progress: (step: string) => void
  /** The local faucet's mints go through the transaction outbox, after its first replay. */
  outbox?: Outbox
  after?: Promise<unknown>
  /**
   * Background work of the embedded chains (their state files' writers) starts once this resolves: the daemon's ready
   * line.
   */
  backgroundAfter?: Promise<unknown>
}

/** The profile's chains: embedded (anvil, LiteSVM) on local, configured RPC URLs elsewhere. */
export function startChains(p: StartChainsParameters): Promise<Chains> {
  return p.config.profile === 'local' ? startLocal(p) : connectRemote(p)
}

async function startLocal({
  config,
  keys,
  anvils,
  deployments,
  progress,
  outbox,
  after,
  backgroundAfter,
}: StartChainsParameters): Promise<Chains> {
  const profile = profiles.local
  // A fixed daemon port gets fixed chain ports beside it, so RPC URLs survive restarts
  // (the EVM chains take +1 and +2, ./embedded/local-anvils.ts; Solana two: JSON-RPC on +3 and its
  // websocket on +4, as a validator does).
  const portFor = (offset: number) => (config.port ? config.port + offset : undefined)
  if (!anvils) throw new BaseError('INTERNAL', 'the local profile started without its anvils spawned')
  progress('starting embedded chains')
  const evmStarts = ([profile.base, profile.radius] as const).map((key) =>
    startLocalEvm({
      spec: networks[key]!,
      dataDir: config.dataDir,
      deployments,
      keys,
      spawned: anvils[key],
      dumpsAfter: backgroundAfter,
    }),
  )
  // LiteSVM's set-up holds the event loop for a few hundred ms of CPU: the anvil processes are
  // spawned first, so they boot and load their state on another core meanwhile.
  const solStart = Promise.all(Object.values(anvils).map((a) => a.catch(() => {}))).then(() =>
    startLocalSolana({
      spec: networks[profile.solana]!,
      host: config.host,
      port: portFor(3),
      chainDbFile: storePath(config.dataDir),
      deployments,
      keys,
      buildAfter: backgroundAfter,
    }),
  )
  const started = await Promise.allSettled([...evmStarts, solStart])
  const stops = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value.stop] : []))
  const stop = async () => void (await Promise.all(stops.map((s) => s())))
  const failed = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined
  if (failed) {
    await stop()
    throw failed.reason
  }
  const [base, radius] = [started[0], started[1]].map((r) => (r as PromiseFulfilledResult<LocalEvm>).value) as [
    LocalEvm,
    LocalEvm,
  ]
  const sol = (started[2] as PromiseFulfilledResult<LocalSolana>).value
  if (base.deployed || radius.deployed) progress('deployed contracts on the embedded EVM chains')
  const evm = { [base.chain.key]: base.chain, [radius.chain.key]: radius.chain }
  return {
    evm,
    solana: sol.chain,
    rpc: {
      [base.chain.key]: base.chain.rpcUrl,
      [radius.chain.key]: radius.chain.rpcUrl,
      [sol.chain.key]: sol.chain.rpcUrl,
    },
    faucet: localFaucet({
      evm,
      deployerKey: keys.deployer as Hex,
      solanaKey: sol.chain.key,
      solana: sol.faucet,
      outbox,
      after,
    }),
    stop,
  }
}

async function connectRemote({ config }: StartChainsParameters): Promise<Chains> {
  const profile = profiles[config.profile]
  if (config.resetChain?.length)
    throw new UsageError(
      'BAD_REQUEST',
      `--reset-chain starts an embedded chain over; the ${config.profile} profile has none`,
    )
  const rpcOf = (key: string) => {
    const url = config.rpc[key]
    if (!url) {
      throw new BaseError('BAD_REQUEST', `the ${config.profile} profile needs an RPC URL for ${key}`, {
        details: `Set PARX_RPC_${key.toUpperCase().replaceAll('-', '_')} or serve.rpc["${key}"] in the config file.`,
      })
    }
    // Its key (path, query or userinfo) is withheld from every answer from now on (daemon/redact.ts).
    registerSecretUrl(url)
    return url
  }
  const evm: Record<string, EvmChain> = {}
  for (const key of [profile.base, profile.radius])
    evm[key] = evmChain(networks[key]!, rpcOf(key), config.contracts[key] ?? {})
  const solUrl = rpcOf(profile.solana)
  const wsUrl = solUrl.replace(/^http/, 'ws')
  const solana = solanaChain(networks[profile.solana]!, solUrl, wsUrl, config.contracts[profile.solana] ?? {})
  return {
    evm,
    solana,
    rpc: {
      [profile.base]: evm[profile.base]!.rpcUrl,
      [profile.radius]: evm[profile.radius]!.rpcUrl,
      [profile.solana]: solUrl,
    },
    stop: async () => {},
  }
}
