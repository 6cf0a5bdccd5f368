import { usageError } from './errors.js'
import { readRuntimeFile } from './runtime-file.js'

export type ApiUrlSource = 'flag' | 'env' | 'runtime-file' | 'default'

/**
 * Where the daemon is: --api-url, else PARX_API_URL, else the runtime file a running `parx serve`
 * wrote, else http://127.0.0.1:$PARX_PORT (8420). A value that is not an http(s) URL is a usage error.
 */
export function resolveApiUrl(flag: string | undefined, env: NodeJS.ProcessEnv): { url: string; source: ApiUrlSource } {
  if (flag !== undefined) return { url: checkUrl(flag, '--api-url'), source: 'flag' }
  if (env.PARX_API_URL) return { url: checkUrl(env.PARX_API_URL, 'PARX_API_URL'), source: 'env' }
  const running = readRuntimeFile(env)
  if (running) return { url: running.apiUrl, source: 'runtime-file' }
  return { url: `http://127.0.0.1:${env.PARX_PORT || 8420}`, source: 'default' }
}

export function checkUrl(value: string, name: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw usageError(`${name} must be an http(s) URL such as http://127.0.0.1:8420, not '${value}'`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`${name} must be an http(s) URL, not '${value}'`)
  return value.replace(/\/+$/, '')
}
