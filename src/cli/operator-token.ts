import { existsSync, readFileSync } from 'node:fs'
import { defaultDataDir } from '../config/load.js'
import { keyFilePath } from '../config/paths.js'

export class NoOperatorTokenError extends Error {
  override name = 'NoOperatorTokenError'
}

/**
 * The operator token: --operator-token, else PARX_OPERATOR_TOKEN, else the local profile's key file
 * in the data dir (the daemon writes it 0600 on first start, so only its user can read it).
 */
export function resolveOperatorToken(opts: { operatorToken?: string; dataDir?: string }, env: NodeJS.ProcessEnv): string {
  if (opts.operatorToken) return opts.operatorToken
  if (env.PARX_OPERATOR_TOKEN) return env.PARX_OPERATOR_TOKEN
  const file = keyFilePath(opts.dataDir ?? env.PARX_DATA_DIR ?? defaultDataDir('local', env))
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { operatorToken: string }).operatorToken
  throw new NoOperatorTokenError(
    `no operator token: pass --operator-token, set PARX_OPERATOR_TOKEN, or run \`parx serve\` once so ${file} exists`,
  )
}
