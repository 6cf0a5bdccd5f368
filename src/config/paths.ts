import { homedir } from 'node:os'
import { join } from 'node:path'

/*
 * The data dir's layout, spelled here only: the daemon writes these files, `parx backup` and
 * `parx restore` copy them, the start adopts a dir that holds nothing else.
 */

/** The names a data dir holds, relative to it. */
export const dataDirNames = {
  /** The SQLite store (also the embedded Solana chain's state). */
  store: 'parx.db',
  /** The service keys, the operator token and the platform wallet key; the CLI reads the local operator token here. */
  keys: 'keys.json',
  /** One `parx serve` per data dir (daemon/startup/lock.ts). */
  lock: 'parx.lock',
  log: 'parx.log',
  /** The embedded EVM chains' state files, one `<network>.json` each (anvil's dump). */
  chains: 'chains',
  /** Archives a running daemon writes for `parx backup` (daemon/backup/service.ts). */
  backups: 'backups',
  /** Written when parx creates the dir: `parx serve --fresh` deletes only a directory that carries it. */
  marker: '.parx-data-dir',
} as const

export const MARKER_TEXT = 'This directory is a parx data dir: `parx serve --fresh` may delete everything in it.\n'

/** SQLite's write-ahead log and shared-memory files beside the store. */
export const storeSidecars = [`${dataDirNames.store}-wal`, `${dataDirNames.store}-shm`] as const

/**
 * What a data dir made by parx may hold besides the marker: a dir made before the marker existed
 * is adopted only when it holds nothing else (daemon/startup/data-dir.ts).
 */
export const DATA_DIR_ENTRIES: readonly string[] = [
  dataDirNames.store,
  ...storeSidecars,
  dataDirNames.keys,
  dataDirNames.chains,
  dataDirNames.log,
  dataDirNames.lock,
]

export const keyFilePath = (dataDir: string) => join(dataDir, dataDirNames.keys)
export const storePath = (dataDir: string) => join(dataDir, dataDirNames.store)
export const logPath = (dataDir: string) => join(dataDir, dataDirNames.log)
export const lockPath = (dataDir: string) => join(dataDir, dataDirNames.lock)
export const markerPath = (dataDir: string) => join(dataDir, dataDirNames.marker)
export const chainsDir = (dataDir: string) => join(dataDir, dataDirNames.chains)
export const backupsDir = (dataDir: string) => join(dataDir, dataDirNames.backups)

/** A rotated log beside `log`: `parx.log.1` newest ... `parx.log.N` (daemon/log-rotation.ts). */
export const rotatedLogPath = (log: string, n: number) => `${log}.${n}`

/** An embedded chain's state file, as named inside chains/. */
export const chainStateFile = (network: string) => `${network}.json`
/** Whether a file inside chains/ is a chain's state (not a running chain's .tmp, .exit or .pid). */
export const isChainStateFile = (name: string) => /^[a-z0-9-]+\.json$/.test(name)
export const chainStatePath = (dataDir: string, network: string) => join(chainsDir(dataDir), chainStateFile(network))

/** A file inside chains/, named relative to the data dir (as a backup names it). */
export const chainsEntry = (file: string) => `${dataDirNames.chains}/${file}`

/**
 * The data-dir files a backup may hold (daemon/backup/format.ts adds its manifest): the store, the
 * keys and the chains' state files, named relative to the data dir.
 */
export const isBackupEntry = (name: string) => {
  if (name === dataDirNames.store || name === dataDirNames.keys) return true
  const [dir, file, ...rest] = name.split('/')
  return dir === dataDirNames.chains && file !== undefined && rest.length === 0 && isChainStateFile(file)
}

/**
 * The per-user config folder: $PARX_CONFIG_DIR, else $XDG_CONFIG_HOME/parx or ~/.config/parx (where
 * conf would put it). Created 0700 by whoever opens the file first (src/cli/user-config.ts, load.ts).
 */
/**
 * Where a profile keeps its data when no --data-dir is given: $XDG_DATA_HOME/parx/<profile> or
 * ~/.local/share/parx/<profile>.
 */
export function defaultDataDir(profile: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share')
  return join(base, 'parx', profile)
}

export function userConfigDir(env: NodeJS.ProcessEnv): string {
  return env.PARX_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'parx')
}
