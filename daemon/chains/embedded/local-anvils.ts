import { mkdirSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ResolvedConfig } from '../../../src/config/load.js'
import { type NetworkSpec, networks } from '../../../src/networks/registry.js'
import { type SpawnedAnvil, spawnAnvil, warnOnStderr } from './anvil-spawn.js'
import { prepareEmbeddedStates, stateFileChains, statePathOf } from './state-check.js'

/** The local profile's anvils by network, spawned and maybe not answering yet. */
export type LocalAnvils = Record<string, Promise<SpawnedAnvil>>

/**
 * The local profile's EVM chains, spawned: their state files checked first (refused here, before any
 * chain starts or writes, when one cannot be read; `--reset-chain` moves one aside), then one anvil
 * each on its state file. A fixed daemon port gets fixed chain ports beside it (+1, +2), so RPC URLs
 * survive restarts. Light on purpose: `parx serve` calls it before the daemon's modules have loaded
 * (daemon/startup/early-start.ts), so the chains boot on the other core meanwhile.
 */
export function spawnLocalAnvils(config: Pick<ResolvedConfig, 'dataDir' | 'port' | 'resetChain'>): LocalAnvils {
  prepareEmbeddedStates({ dataDir: config.dataDir, reset: config.resetChain ?? [], warn: warnOnStderr })
  const anvils: LocalAnvils = {}
  stateFileChains.forEach((key, i) => {
    const spawned = spawnChainAnvil(config.dataDir, networks[key]!, config.port ? config.port + i + 1 : undefined)
    // Awaited where the chain is started, or stopped by abandonAnvils: a failed spawn is reported there.
    spawned.catch(() => {})
    anvils[key] = spawned
  })
  return anvils
}

/** One embedded chain's anvil, on its state file in the data dir (created, with the directory, on its first start). */
export function spawnChainAnvil(dataDir: string, spec: NetworkSpec, port: number | undefined): Promise<SpawnedAnvil> {
  const statePath = statePathOf(dataDir, spec.key)
  mkdirSync(dirname(statePath), { recursive: true })
  return spawnAnvil({ name: spec.key, chainId: spec.chainId!, port, statePath })
}

/** Stops what spawnLocalAnvils started and nothing then took over (a start refused before its chains ran). */
export async function abandonAnvils(anvils: LocalAnvils): Promise<void> {
  await Promise.all(
    Object.values(anvils).map(async (p) => {
      const a = await p.catch(() => undefined)
      if (!a || a.adopted) return
      // Killed, not stopped: it changed nothing, so no exit dump is written over its state file.
      a.child.kill('SIGKILL')
      if (a.child.exitCode === null && a.child.signalCode === null) await new Promise((r) => a.child.once('exit', r))
      if (a.pidFile) rmSync(a.pidFile, { force: true })
    }),
  )
}
