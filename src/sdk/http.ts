import { ApiError, UnreachableError } from './http-errors.js'

// The error classes live apart so the CLI can tell them without loading undici.
export { ApiError, UnreachableError }

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
  // Loaded at the first call: a module that imports this one (the daemon's) does not pay for undici at its start.
  const { request } = await import('undici')
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
    throw new ApiError(
      res.statusCode,
      body.code ?? 'HTTP_' + res.statusCode,
      body.error ?? (text.slice(0, 200) || `HTTP ${res.statusCode}`),
      data,
    )
  }
  return data as T
}
