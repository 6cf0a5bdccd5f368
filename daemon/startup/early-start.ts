import type { ResolvedConfig } from '../../src/config/load.js'
import { BaseError } from '../../src/errors/index.js'
import { abandonAnvils, type LocalAnvils, spawnLocalAnvils } from '../chains/embedded/local-anvils.js'
import { refuseWhatCannotWork } from '../startup-check.js'
import { prepareDataDir } from './data-dir.js'
import { startupError } from './failure.js'
import type { DataDirLock } from './lock.js'
import { ownerOnlyUmask } from './owner-only.js'
import { assertPortFree } from './ports.js'

export type EarlyStart = {
  lock: DataDirLock
  /** The local profile's EVM chains, spawned (the composition root waits for them and runs them). */
  anvils?: LocalAnvils
  /**
   * Gives back what was taken here: the anvils nothing took over since (a start that failed before its chains ran), the
   * lock, then the umask.
   */
  release(): Promise<void>
}

/**
 * A start's first steps, in this order, before anything of the daemon's services exists: refused
 * when the config cannot work, the data dir checked and locked (emptied by --fresh only then), the
 * API port checked, and on the local profile the embedded EVM chains spawned. Its modules are light,
 * so `parx serve` runs it while the composition root's load (daemon/main.ts, most of the start-up)
 * is still under way: anvil boots and loads its state on the other core meanwhile, instead of after.
 */
export async function startEarly(config: Readonly<ResolvedConfig>): Promise<EarlyStart> {
  if (config.role !== 'all' && !config.store.url) {
    throw new BaseError(
      'BAD_REQUEST',
      `--role ${config.role} needs a PostgreSQL store shared with the other processes: ` +
        `set PARX_STORE_URL (or store.url) to a postgres:// URL, or run --role all`,
    )
  }
  await refuseWhatCannotWork(config)
  // Given back last, when the daemon stops or this start fails: its embedder's umask is its own.
  const restoreUmask = ownerOnlyUmask()
  let lock: DataDirLock
  try {
    lock = prepareDataDir(config.dataDir, { fresh: Boolean(config.fresh) })
  } catch (e) {
    restoreUmask()
    throw e
  }
  try {
    if (config.port) await assertPortFree(config.host, config.port, 'the API, --port')
    const anvils = config.profile === 'local' ? spawnLocalAnvils(config) : undefined
    const release = async () => {
      try {
        if (anvils) await abandonAnvils(anvils)
        lock.release()
      } finally {
        restoreUmask()
      }
    }
    return { lock, anvils, release }
  } catch (e) {
    lock.release()
    restoreUmask()
    throw startupError(e, config)
  }
}
