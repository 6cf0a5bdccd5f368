import type { Context } from 'hono'
import type { FlowName } from '../../src/config/schema.js'
import type { SurfaceName, Surfaces } from '../services.js'

/**
 * One route = one file exporting a RouteDef. `auth`: open, partner (x-api-key, the K routes of
 * SPEC §5) or operator (bearer token). `flow`: the route answers FLOW_DISABLED when it is off.
 * `surface`: the one service its handler receives (daemon/services.ts).
 */
export type RouteDef<S extends SurfaceName = SurfaceName> = {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  auth: 'open' | 'partner' | 'operator'
  flow?: FlowName
  /** Largest accepted body in bytes (default 64 KiB). */
  maxBody?: number
  surface: S
  handler: (c: Context, s: Surfaces[S]) => Response | Promise<Response>
}

/** Any route, whatever its surface (what the route list holds). */
export type AnyRoute = { [S in SurfaceName]: RouteDef<S> }[SurfaceName]

export const route = <S extends SurfaceName>(def: RouteDef<S>): RouteDef<S> => def
