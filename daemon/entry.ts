import type { ResolvedConfig } from '../src/config/load.js'
import type { Daemon, StartDaemonOptions } from './main.js'
import { startEarly } from './startup/early-start.js'

/*
 * What the CLI imports of the daemon (src/ reaches daemon/ only through here), light on purpose:
 * each function loads the modules it needs when it is called.
 */

let root: Promise<typeof import('./main.js')> | undefined

/**
 * Starts loading the composition root (daemon/main.ts), most of `parx serve`'s start-up, so that
 * it loads while the caller reads its config; startDaemon waits for it.
 */
export function loadRoot(): Promise<typeof import('./main.js')> {
  root ??= import('./main.js')
  root.catch(() => {}) // startDaemon awaits it and meets the failure
  return root
}

/**
 * `parx serve`: the start's first steps (./startup/early-start.ts: the data dir locked, the embedded
 * EVM chains spawned) run while the composition root still loads, so the chains boot on the other
 * core during that load instead of after it.
 */
export async function startDaemon(
  config: Readonly<ResolvedConfig>,
  opts: Omit<StartDaemonOptions, 'early'> = {},
): Promise<Daemon> {
  const loading = loadRoot()
  const early = startEarly(config)
  // main.startDaemon awaits it and meets its refusal; this keeps it from counting as unhandled meanwhile.
  early.catch(() => {})
  let main
  try {
    main = await loading
  } catch (e) {
    // Nothing will take over what the first steps took.
    await early.then(
      (taken) => taken.release(),
      () => {},
    )
    throw e
  }
  return main.startDaemon(config, { ...opts, early })
}

export async function startStandaloneChains(
  ...args: Parameters<typeof import('./chains/standalone.js').startStandaloneChains>
) {
  return (await import('./chains/standalone.js')).startStandaloneChains(...args)
}

export async function deployNetwork(...args: Parameters<typeof import('./chains/deploy-network.js').deployNetwork>) {
  return (await import('./chains/deploy-network.js')).deployNetwork(...args)
}

/** `parx backup`: the live daemon holding a data dir (./startup/lock.ts), undefined when none runs. */
export async function lockHolder(...args: Parameters<typeof import('./startup/lock.js').lockHolder>) {
  return (await import('./startup/lock.js')).lockHolder(...args)
}

/** `parx backup` of a stopped daemon: its data dir held so no `parx serve` starts while the files are copied. */
export async function lockDataDir(...args: Parameters<typeof import('./startup/lock.js').lockDataDir>) {
  return (await import('./startup/lock.js')).lockDataDir(...args)
}

export async function snapshotDataDir(...args: Parameters<typeof import('./backup/snapshot.js').snapshotDataDir>) {
  return (await import('./backup/snapshot.js')).snapshotDataDir(...args)
}

export async function restoreDataDir(...args: Parameters<typeof import('./backup/restore.js').restoreDataDir>) {
  return (await import('./backup/restore.js')).restoreDataDir(...args)
}

export async function startAttestorProcess(
  ...args: Parameters<typeof import('./xchain/attestors/process.js').startAttestorProcess>
) {
  return (await import('./xchain/attestors/process.js')).startAttestorProcess(...args)
}
