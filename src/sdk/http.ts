import { request } from 'undici'

/** A non-2xx answer from a parx service, carrying its `{ error, code }` body. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

/** The daemon could not be reached at all (not running, wrong URL). */
export class UnreachableError extends Error {
  override name = 'UnreachableError'
  constructor(readonly url: string, cause: unknown) {
    super(`cannot reach ${url}: ${(cause as Error)?.message ?? cause}`, { cause })
  }
}

export type CallOptions = {
  method?: 'GET' | 'POST' | 'DELETE'
  body?: unknown
  headers?: Record<string, string>
  query?: Record<string, string | number | undefined>
}

/** One JSON call to a parx service. Throws ApiError on a non-2xx answer, UnreachableError when nobody answers. */
export async function callJson<T>(baseUrl: string, path: string, opts: CallOptions = {}): Promise<T> {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
  let res
  try {
    res = await request(url, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    })
  } catch (e) {
    throw new UnreachableError(url.origin, e)
  }
  const text = await res.body.text()
  let data: unknown
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    data = undefined
  }
  if (res.statusCode >= 400) {
    const body = (data ?? {}) as { error?: string; code?: string }
    throw new ApiError(res.statusCode, body.code ?? 'HTTP_' + res.statusCode, body.error ?? (text.slice(0, 200) || `HTTP ${res.statusCode}`))
  }
  return data as T
}
