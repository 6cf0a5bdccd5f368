import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { CallOptions } from '../sdk/http.js'
import { ApiError, UnreachableError } from '../sdk/http-errors.js'
import type { CliContext } from './context.js'
import { CliError } from './errors.js'

export type DaemonCallOptions = CallOptions & {
  /** Non-2xx statuses whose JSON body is still the answer (e.g. 503 from /api/readiness, with the detail). */
  acceptStatus?: number[]
}

/**
 * One JSON call to the daemon at ctx.apiUrl, with the same errors as src/sdk/http.ts (ApiError,
 * UnreachableError). node:http, not the undici package (importing it costs a CLI process ~150 ms,
 * more than everything else it does) nor fetch (which refuses ports such as 6000 and 6665-6669). An answer that is not
 * parx's (an HTML 404,
 * JSON without `code`, a 200 without JSON) is NOT_PARX, naming the URL, instead of a bare `HTTP 404`.
 */
export async function callDaemon<T>(
  ctx: Pick<CliContext, 'apiUrl'>,
  path: string,
  opts: DaemonCallOptions = {},
): Promise<T> {
  const base = ctx.apiUrl
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`)
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
  let res: { status: number; text: string }
  try {
    res = await send(url, opts)
  } catch (e) {
    throw new UnreachableError(url.origin, e)
  }
  const text = res.text
  let data: unknown
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    data = undefined
  }
  if (res.status >= 400) {
    if (acceptable(opts, res.status) && isObject(data)) return data as T
    const body = (isObject(data) ? data : {}) as { error?: unknown; code?: unknown }
    if (typeof body.code !== 'string') throw notParx(base, `HTTP ${res.status} without a parx error body`)
    throw new ApiError(res.status, body.code, typeof body.error === 'string' ? body.error : `HTTP ${res.status}`, data)
  }
  if (!isObject(data)) throw notParx(base, 'something that is not JSON')
  return data as T
}

const acceptable = (opts: DaemonCallOptions, status: number) => opts.acceptStatus?.includes(status) ?? false
const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null

const notParx = (url: string, what: string) =>
  new CliError(
    'NOT_PARX',
    `the server at ${url} is not a parx daemon (it answered ${what}). ` +
      `Check --api-url or PARX_API_URL, or start one with \`parx serve\`.`,
  )

function send(url: URL, opts: CallOptions): Promise<{ status: number; text: string }> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
