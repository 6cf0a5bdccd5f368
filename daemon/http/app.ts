import { type Context, Hono } from 'hono'
import type { Logger } from 'pino'
import type { FlowName } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import type { AuthService } from '../auth/service.js'
import type { SessionResolver } from '../dashboard/session-auth.js'
import { type HttpRecorder, httpTimingMiddleware, markRoute } from '../metrics/http.js'
import type { Caller } from '../platform/service.js'
import type { Surfaces } from '../services.js'
import { type TrustedProxies, trustedProxies } from './client-address.js'
import { authorize } from './middleware/auth.js'
import { errorHandler, withRequestId } from './middleware/errors.js'
import { limitedResolve } from './middleware/limit-key.js'
import type { RateLimiter } from './middleware/rate-limit.js'
import { requestIdMiddleware } from './middleware/request-id.js'
import { withNoStore } from './no-store.js'
import { DEFAULT_MAX_BODY, readInput, refuseDeclaredOversize } from './parse.js'
import type { AnyRoute, CallerAuth } from './route.js'
import { routes as allRoutes } from './routes/index.js'

export type AppDeps = {
  /** The services routes are handed, one per surface; a test passes only those its routes use. */
  surfaces: Partial<Surfaces>
  auth: AuthService
  log: Logger
  /** Port: the token buckets (this process's, or shared through a PostgreSQL store). */
  limiter: RateLimiter
  /** Whose X-Forwarded-For is believed (daemon/http/client-address.ts). Default: nobody's. */
  proxies?: TrustedProxies
  flowEnabled(flow: FlowName): boolean
  /** Default: every route of the daemon. */
  routes?: AnyRoute[]
  /** Resolves platform keys (x-user-key, x-agent-key) for routes whose auth is user, agent or owner. */
  callers?: CallerResolver
  /** Resolves the dashboard session cookie (and CSRF token) for routes whose auth is session. */
  sessions?: SessionResolver
  /** Where every answer is timed by route template (daemon/metrics/http.ts); none: not recorded. */
  metrics?: HttpRecorder
}

export type CallerResolver = { caller(c: Context, want: CallerAuth): Promise<Caller> }

/** The daemon's HTTP app, built without listening so tests can call it in-process (`app.request`). */
export function createApp(d: AppDeps): Hono {
  const app = new Hono()
  const proxies = d.proxies ?? trustedProxies([])
  app.onError(errorHandler(d.log))
  app.notFound((c) =>
    c.json(
      withRequestId(
        { error: `no route ${c.req.method} ${c.req.path}; every route is in GET /api/openapi.json`, code: 'NOT_FOUND' },
        c,
      ),
      404,
    ),
  )
  // First: every answer, whatever refuses the request, carries its id and is timed.
  app.use(requestIdMiddleware())
  if (d.metrics) app.use(httpTimingMiddleware(d.metrics))
  for (const def of d.routes ?? allRoutes) {
    const surface = d.surfaces[def.surface]
    if (!surface)
      throw new BaseError(
        'INTERNAL',
        `route ${def.method} ${def.path} needs the ${def.surface} surface, which createApp was not given`,
      )
    const callers = isCallerAuth(def.auth) ? d.callers : undefined
    if (isCallerAuth(def.auth) && !callers)
      throw new BaseError(
        'INTERNAL',
        `route ${def.method} ${def.path} takes ${def.auth} keys, and createApp was given no callers resolver`,
      )
    const sessions = def.auth === 'session' ? d.sessions : undefined
    if (def.auth === 'session' && !sessions)
      throw new BaseError(
        'INTERNAL',
        `route ${def.method} ${def.path} takes a dashboard session, and createApp was given no sessions resolver`,
      )
    if (def.sameOrigin && !d.sessions)
      throw new BaseError(
        'INTERNAL',
        `route ${def.method} ${def.path} is taken from the dashboard's ` +
          `origin only, and createApp was given no sessions resolver`,
      )
    const matched = { path: def.path, surface: def.surface }
    app.on(def.method, def.path, async (c) => {
      markRoute(c, matched)
      // A declared body over the route's cap is refused before anything else is spent on it.
      await refuseDeclaredOversize(c, def.maxBody ?? DEFAULT_MAX_BODY)
      if (def.sameOrigin) d.sessions!.refuseCrossSite(c)
      // Credentials first, then the caller's own bucket (docs/hosting.md "Hosting safely": how limits are keyed).
      const { session, caller } = await limitedResolve(
        c,
        { limiter: d.limiter, address: proxies.client(c).address, auth: def.auth, authService: d.auth },
        async () => {
          const session = sessions ? await sessions.session(c) : undefined
          const caller = callers
            ? await callers.caller(c, def.auth as CallerAuth)
            : session
              ? undefined
              : (await authorize(c, def.auth as 'open' | 'partner' | 'operator', d.auth), undefined)
          return { session, caller }
        },
      )
      if (def.flow && !d.flowEnabled(def.flow)) {
        throw new BaseError(
          'FLOW_DISABLED',
          `the ${def.flow} flow is disabled on this service (see GET /api/capabilities)`,
        )
      }
      const input = { ...(await readInput(c, def)), caller, session }
      return withNoStore(def, await def.handler(c, surface as never, input as never))
    })
  }
  return app
}

function isCallerAuth(auth: string): auth is CallerAuth {
  return auth === 'user' || auth === 'agent' || auth === 'owner'
}
