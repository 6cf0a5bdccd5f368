import { CSRF_HEADER, dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { ApiError } from '../../../src/sdk/http-errors.js'
import { render, state } from './state.js'

type Method = 'GET' | 'POST' | 'DELETE'

/** A path of src/sdk/dashboard/routes.ts with its `:name` parts filled in. */
export function at(
  path: string,
  params: Record<string, string> = {},
  query: Record<string, string | undefined> = {},
): string {
  const filled = path.replace(/:([a-zA-Z]+)/g, (_, k: string) => encodeURIComponent(params[k] ?? ''))
  const q = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  )
  const qs = q.toString()
  return qs ? `${filled}?${qs}` : filled
}

/**
 * One call of a JSON route, typed by the caller against src/sdk/dashboard/. Changes carry the
 * session's CSRF token; a 401 UNAUTHORIZED (the session expired or was signed out elsewhere) goes
 * back to the sign-in page.
 */
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET' && state.session) headers[CSRF_HEADER] = state.session.csrfToken
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let data: { error?: string; code?: string } | null
  try {
    data = text ? (JSON.parse(text) as typeof data) : null
  } catch {
    data = { error: text }
  }
  if (res.ok) return data as T
  // An error answer of the dashboard's JSON routes, `{ error, code }` (docs/errors.md), as the SDK's one ApiError.
  const err = new ApiError(res.status, data?.code ?? `HTTP_${res.status}`, data?.error || `HTTP ${res.status}`, data)
  if (res.status === 401 && err.code === 'UNAUTHORIZED' && path !== dashboardPaths.siweLogin) {
    state.session = null
    render()
  }
  throw err
}
