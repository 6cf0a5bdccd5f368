import type { CallOptions } from '../sdk/http.js'
import { ApiError } from '../sdk/http-errors.js'
import type { CliContext } from './context.js'
import { CliError } from './errors.js'

export type DaemonCallOptions = CallOptions & {
  /** Non-2xx statuses whose JSON body is still the answer (e.g. 503 from /api/readiness, with the detail). */
  acceptStatus?: number[]
}

/**
 * One JSON call to the daemon at ctx.apiUrl. The HTTP client loads on first use (never for --help).
 * An answer that is not parx's (an HTML 404, JSON without `code`, a 200 without JSON) is NOT_PARX,
 * naming the URL, instead of a bare `HTTP 404`.
 */
export async function callDaemon<T>(ctx: Pick<CliContext, 'apiUrl'>, path: string, opts: DaemonCallOptions = {}): Promise<T> {
  const { callJson } = await import('../sdk/http.js')
  const { acceptStatus, ...call } = opts
  const base = ctx.apiUrl
  let result: T
  try {
    result = await callJson<T>(base, path, call)
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    if (acceptStatus?.includes(e.status) && isObject(e.body)) return e.body as T
    if (e.code.startsWith('HTTP_')) throw notParx(base, `HTTP ${e.status} without a parx error body`)
    throw e
  }
  if (!isObject(result)) throw notParx(base, 'something that is not JSON')
  return result
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null

const notParx = (url: string, what: string) =>
  new CliError('NOT_PARX', `the server at ${url} is not a parx daemon (it answered ${what}). Check --api-url or PARX_API_URL, or start one with \`parx serve\`.`)
