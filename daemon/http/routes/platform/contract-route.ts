import type { z } from 'zod'
import type { PlatformRoute } from '../../../../src/sdk/platform/routes.js'
import { type RouteDef, route } from '../../route.js'

type BodyOf<R> = R extends { body: infer B extends z.ZodTypeAny } ? B : undefined
type ParamsOf<R> = R extends { params: infer P extends z.ZodTypeAny } ? P : undefined
type QueryOf<R> = R extends { query: infer Q extends z.ZodTypeAny } ? Q : undefined

/**
 * A platform route from its entry in the wire contract (src/sdk/platform/routes.ts): method, path,
 * auth, path parameters, query and body come from there, so the typed client and the daemon cannot drift.
 */
export function platformRoute<const R extends PlatformRoute>(
  r: R,
  handler: RouteDef<'platform', BodyOf<R>, QueryOf<R>, ParamsOf<R>, R['auth']>['handler'],
): RouteDef<'platform', BodyOf<R>, QueryOf<R>, ParamsOf<R>, R['auth']> {
  const def = {
    method: r.method,
    path: r.path,
    auth: r.auth,
    params: r.params,
    query: r.query,
    body: r.body,
    summary: r.summary,
    response: r.response,
    errors: r.errors,
    surface: 'platform',
    handler,
  }
  return route(def as RouteDef<'platform', BodyOf<R>, QueryOf<R>, ParamsOf<R>, R['auth']>)
}
