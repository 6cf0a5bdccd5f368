import type { Context } from 'hono'
import type { FlowName } from '../../src/config/schema.js'
import type { Services } from '../services.js'

/**
 * One route = one file exporting a RouteDef. `auth`: open, partner (x-api-key, the K routes of
 * SPEC §5) or operator (bearer token). `flow`: the route answers FLOW_DISABLED when it is off.
 */
export type RouteDef = {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  auth: 'open' | 'partner' | 'operator'
  flow?: FlowName
  /** Largest accepted body in bytes (default 64 KiB). */
  maxBody?: number
  handler: (c: Context, s: Services) => Response | Promise<Response>
}

export const route = (def: RouteDef): RouteDef => def
