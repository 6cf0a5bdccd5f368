import type { AnyRoute } from './route.js'

/**
 * `Cache-Control: no-store` for every answer of an authenticated route (a caller's own data, and
 * the create answers that show a user, agent or partner key, a webhook secret or a session's CSRF
 * token once) and of the open routes that declare `noStore` (sign-in). A shared cache does not know
 * that x-user-key, x-agent-key or x-api-key make an answer private: only Authorization does.
 */
export function withNoStore(def: Pick<AnyRoute, 'auth' | 'noStore'>, res: Response): Response {
  if (def.auth === 'open' && !def.noStore) return res
  try {
    res.headers.set('cache-control', 'no-store')
    return res
  } catch {
    // Immutable headers (a Response from fetch): the same answer with a copy of them.
    const headers = new Headers(res.headers)
    headers.set('cache-control', 'no-store')
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
  }
}
