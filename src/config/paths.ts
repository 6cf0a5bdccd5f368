import { homedir } from 'node:os'
import { join } from 'node:path'

/** Files inside a data dir. The daemon writes them; the CLI reads the local operator token from keys.json. */
export const keyFilePath = (dataDir: string) => join(dataDir, 'keys.json')
export const storePath = (dataDir: string) => join(dataDir, 'parx.db')
export const logPath = (dataDir: string) => join(dataDir, 'parx.log')

/**
 * The per-user config folder: $PARX_CONFIG_DIR, else $XDG_CONFIG_HOME/parx or ~/.config/parx (where
 * conf would put it). Created 0700 by whoever opens the file first (src/cli/user-config.ts, load.ts).
 */
/** Where a profile keeps its data when no --data-dir is given: $XDG_DATA_HOME/parx/<profile> or ~/.local/share/parx/<profile>. */
export function defaultDataDir(profile: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share')
  return join(base, 'parx', profile)
}

export function userConfigDir(env: NodeJS.ProcessEnv): string {
  return env.PARX_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'parx')
}
