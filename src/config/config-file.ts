import { chmodSync, mkdirSync } from 'node:fs'
import Conf from 'conf'
import { UsageError } from '../errors/index.js'
import { userConfigDir } from './paths.js'

/**
 * The per-user config file (mode 0600), for writing. PARX_CONFIG_DIR moves it (tests, several
 * daemons). Apart from load.ts, which reads it without conf, so `parx serve` never loads conf.
 */
export function openConfigFile(env: NodeJS.ProcessEnv = process.env): Conf<Record<string, unknown>> {
  // The folder holds keys: 0700 from the start (conf alone would create it 0755), and tightened if
  // an older version or a loose umask made it wider.
  const cwd = userConfigDir(env)
  try {
    mkdirSync(cwd, { recursive: true, mode: 0o700 })
    try {
      chmodSync(cwd, 0o700)
    } catch {
      // Not ours to change (PARX_CONFIG_DIR pointing at a shared folder): left as it is.
    }
    return new Conf<Record<string, unknown>>({ projectName: 'parx', projectSuffix: '', configFileMode: 0o600, cwd })
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    throw new UsageError(
      'BAD_REQUEST',
      `cannot open the config file in ${cwd} (${err.code ?? err.message}); fix its permissions or set PARX_CONFIG_DIR`,
      { cause: e },
    )
  }
}
