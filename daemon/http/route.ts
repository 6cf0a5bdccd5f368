import type { Context } from 'hono'
import type { z } from 'zod'
import type { FlowName } from '../../src/config/schema.js'
import type { ErrorCode } from '../../src/errors/codes.js'
import type { Session } from '../dashboard/sessions.js'
import type { Caller, PlatformOperations } from '../platform/service.js'
import type { SurfaceName, Surfaces } from '../services.js'

/**
 * Who may call a route. open: anyone. partner: a partner key in x-api-key (the K routes of docs/swap-api.md
 * "Authentication").
 * operator: the operator bearer token. user: a platform user key (x-user-key). agent: an agent key
 * (x-agent-key). owner: either, for routes an agent may call on itself and its user on any of its
 * agents (docs/platform-api.md). session: a signed-in dashboard session cookie, and on POST and
 * DELETE the dashboard's own Origin and the session's CSRF token (daemon/dashboard/session-auth.ts).
 */
export type RouteAuth = 'open' | 'partner' | 'operator' | 'user' | 'agent' | 'owner' | 'session'
export type CallerAuth = Extract<RouteAuth, 'user' | 'agent' | 'owner'>

type Schema = z.ZodTypeAny | undefined
type Out<T extends Schema> = T extends z.ZodTypeAny ? z.output<T> : undefined

/** What the app validated before the handler runs, typed by the route's own schemas. */
export type RouteInput<B extends Schema, Q extends Schema, P extends Schema, A extends RouteAuth> = {
  body: Out<B>
  query: Out<Q>
  params: Out<P>
  /** The platform caller, resolved from its key; present exactly when `auth` is user, agent or owner. */
  caller: A extends CallerAuth ? Caller : undefined
  /** The dashboard session (its wallet, CSRF token, cookie id); present exactly when `auth` is session. */
  session: A extends 'session' ? Session & { id: string } : undefined
}

/**
 * One route = one file exporting a RouteDef: the app (daemon/http/app.ts) enforces everything
 * declared here before the handler runs: rate limit, `auth`, the `flow` switch (FLOW_DISABLED),
 * then `params`, `query` and the JSON `body` (at most `maxBody` bytes, default 64 KiB) against
 * their zod schemas, taken from the surface's wire contract in src/sdk/. `surface`: the one
 * service its handler receives (daemon/services.ts). A route that reads its body raw (a seller's
 * paid endpoint) declares no `body`.
 */
export type RouteDef<
  S extends SurfaceName = SurfaceName,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
  A extends RouteAuth = RouteAuth,
> = {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  auth: A
  flow?: FlowName
  /** Largest accepted body in bytes (default 64 KiB). */
  maxBody?: number
  /**
   * Refused when a browser sends it from another site than the dashboard's (ORIGIN_REJECTED,
   * daemon/dashboard/cross-site.ts), before anything else is read: for the open routes that start
   * a session, which a page elsewhere could otherwise post to with the visitor's browser. Session
   * routes' changes are checked so without it.
   */
  sameOrigin?: true
  /**
   * `Cache-Control: no-store` on an open route's answers (authenticated routes always have it:
   * daemon/http/no-store.ts).
   */
  noStore?: boolean
  body?: B
  query?: Q
  params?: P
  /**
   * For the OpenAPI document only (daemon/http/openapi/): a one-line summary, the schema of the
   * 200 answer, and the error codes this route answers with beyond the common ones. A route
   * without them is documented from its path, as answering a JSON object.
   */
  summary?: string
  response?: z.ZodTypeAny
  /** The success status, when not 200. */
  status?: 201
  /** The success answer's media type when it is not JSON (a page, a script, Prometheus' text). */
  contentType?: string
  errors?: readonly ErrorCode[]
  /** The handler reads the body itself, whatever its type (a seller's paid endpoint): documented as any bytes. */
  rawBody?: true
  surface: S
  handler: (c: Context, s: RouteSurface<S>, input: RouteInput<B, Q, P, A>) => Response | Promise<Response>
}

/**
 * The service a route's handler gets: its surface's, and for the platform only its operations (no rows, ledger, chains
 * or logger).
 */
export type RouteSurface<S extends SurfaceName> = S extends 'platform' ? PlatformOperations : Surfaces[S]

/** Any route, whatever its surface and schemas (what the route list holds). */
// biome-ignore lint/suspicious/noExplicitAny: a table of routes of every schema; each is typed where it is declared
export type AnyRoute = { [S in SurfaceName]: RouteDef<S, any, any, any, RouteAuth> }[SurfaceName]

export const route = <
  S extends SurfaceName,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
  A extends RouteAuth = RouteAuth,
>(
  def: RouteDef<S, B, Q, P, A>,
): RouteDef<S, B, Q, P, A> => def
