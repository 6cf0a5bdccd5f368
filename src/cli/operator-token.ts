import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { keyFilePath } from '../config/paths.js'
import { CliError } from './errors.js'

/**
 * The operator token: --operator-token, else PARX_OPERATOR_TOKEN, else the key file of the local
 * daemon's data dir (--data-dir, PARX_DATA_DIR, the running `parx serve`'s, or the default; the
 * daemon writes it 0600 on first start, so only its user can read it).
 */
export function resolveOperatorToken(
  opts: { operatorToken?: string; dataDir?: string },
  env: NodeJS.ProcessEnv,
  runningDataDir?: string,
): string {
  if (opts.operatorToken) return opts.operatorToken
  if (env.PARX_OPERATOR_TOKEN) return env.PARX_OPERATOR_TOKEN
  const file = keyFilePath(opts.dataDir ?? env.PARX_DATA_DIR ?? runningDataDir ?? defaultLocalDataDir(env))
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { operatorToken: string }).operatorToken
  throw new CliError(
    'NO_CREDENTIALS',
    `no operator token: pass --operator-token, set PARX_OPERATOR_TOKEN, or run \`parx serve\` once so ${file} exists`,
  )
}

/** Same rule as src/config/load.ts defaultDataDir('local'), without loading the config schema. */
function defaultLocalDataDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'parx', 'local')
}
