import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
  type ZodRequestBody,
} from '@asteasolutions/zod-to-openapi'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { z } from 'zod'
import type { ErrorCode } from '../../../src/errors/codes.js'
import { DEFAULT_MAX_BODY } from '../parse.js'
import type { AnyRoute } from '../route.js'
import { byStatus, errorBody } from './error-body.js'
import { securityOf, securitySchemes } from './security.js'

/** Any route may answer these (src/sdk/platform/routes.ts COMMON_ERRORS, less what its declarations rule out). */
const ANY_ROUTE: readonly ErrorCode[] = ['RATE_LIMITED', 'INTERNAL', 'STORE_UNAVAILABLE']

// `registry.register` names a schema through the `.openapi()` method this adds to zod's types (additive only).
extendZodWithOpenApi(z)

export type OpenApiParameters = {
  routes: readonly AnyRoute[]
  version: string
  /** Where the API is served, when known (the daemon's public URL); absent: relative to the document. */
  serverUrl?: string
}

/**
 * The OpenAPI 3.1 document of the daemon, generated from its route table (daemon/http/routes/index.ts)
 * and the zod schemas each route declares, so it cannot drift from what the app enforces. A schema
 * the generator cannot express (a zod type it does not know) is documented as any JSON rather than
 * failing the whole document: `unexpressed` lists them, and a test keeps that list short.
 */
export function openApiDocument(p: OpenApiParameters): { document: OpenAPIObject; unexpressed: string[] } {
  // Whole first (about half a second); schema by schema only when the generator refuses one.
  try {
    return build(p, false)
  } catch {
    return build(p, true)
  }
}

function build(p: OpenApiParameters, probe: boolean): { document: OpenAPIObject; unexpressed: string[] } {
  const registry = new OpenAPIRegistry()
  for (const [name, scheme] of Object.entries(securitySchemes))
    registry.registerComponent('securitySchemes', name, scheme)
  const errorRef = registry.register('Error', errorBody)
  const unexpressed: string[] = []
  const ids = new Set<string>()
  for (const def of p.routes) {
    const where = `${def.method} ${def.path}`
    const schema = <T extends z.ZodTypeAny>(
      s: T | undefined,
      part: string,
      fallback: z.ZodTypeAny = z.unknown(),
    ): z.ZodTypeAny | undefined => {
      if (!s) return undefined
      if (!probe || expressible(s)) return s
      unexpressed.push(`${where} ${part}`)
      return fallback
    }
    const route: RouteConfig = {
      method: def.method.toLowerCase() as 'get',
      path: openApiPath(def.path),
      operationId: operationId(def, ids),
      tags: [def.surface],
      summary: def.summary ?? derivedSummary(def),
      ...(def.auth === 'open' ? {} : { security: securityOf(def.auth) }),
      request: {
        params: pathParams(def, schema(def.params, 'params', z.object({}))),
        query: objectOrUndefined(schema(def.query, 'query')),
        body: requestBody(def, schema(def.body, 'body')),
      },
      responses: {
        [String(def.status ?? 200)]: {
          description:
            def.response || def.contentType || def.rawBody
              ? 'success'
              : 'success: a JSON object (no schema declared for this route yet)',
          content: def.rawBody
            ? { '*/*': { schema: {} } }
            : def.contentType
              ? { [def.contentType]: { schema: { type: 'string' } } }
              : { 'application/json': { schema: schema(def.response, 'response') ?? z.record(z.unknown()) } },
        },
        ...errorResponses(def, errorRef),
      },
    }
    if (def.body || def.rawBody)
      route.description = `Bodies up to ${def.maxBody ?? DEFAULT_MAX_BODY} bytes (413 PAYLOAD_TOO_LARGE past it).`
    registry.registerPath(route)
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'parx',
      version: p.version,
      description:
        'The HTTP API of a parx daemon: swaps, cross-chain orders, the x402 facilitator, ' +
        'the agent payments platform and its dashboard. Generated from the route table; ' +
        'errors are `{ error, code, requestId? }` with `code` from one published list.',
    },
    ...(p.serverUrl ? { servers: [{ url: p.serverUrl }] } : {}),
  })
  return { document, unexpressed }
}

/** Hono's `:id` is OpenAPI's `{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
}

const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)

/** Every `{name}` of the path is a parameter, typed by the route's schema where it declares one, a string otherwise. */
function pathParams(def: AnyRoute, declared: z.ZodTypeAny | undefined): z.AnyZodObject | undefined {
  const names = pathParamNames(def.path)
  if (names.length === 0) return undefined
  const shape = objectOrUndefined(declared)?.shape ?? {}
  return z.object(Object.fromEntries(names.map((n) => [n, shape[n] ?? z.string()])))
}

function requestBody(def: AnyRoute, body: z.ZodTypeAny | undefined): ZodRequestBody | undefined {
  if (def.rawBody && def.method !== 'GET')
    return {
      description: "forwarded to the seller's upstream as sent, once paid",
      required: false,
      content: { '*/*': { schema: {} } },
    }
  if (!body) return undefined
  return { required: true, content: { 'application/json': { schema: body } } }
}

/**
 * The generator takes parameters only as an object schema (possibly refined): anything else is left to the handler's
 * words.
 */
function objectOrUndefined(s: z.ZodTypeAny | undefined): z.AnyZodObject | undefined {
  let t = s
  while (t instanceof z.ZodEffects) t = t.innerType()
  return t instanceof z.ZodObject ? t : undefined
}

function errorResponses(def: AnyRoute, ref: z.ZodTypeAny): Record<string, ResponseConfig> {
  const codes: ErrorCode[] = [...(def.errors ?? []), ...ANY_ROUTE]
  if (def.body || def.query || def.params) codes.push('BAD_REQUEST')
  if (def.body) codes.push('MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE')
  if (def.body || def.rawBody) codes.push('PAYLOAD_TOO_LARGE')
  if (def.auth !== 'open') codes.push('UNAUTHORIZED')
  if (def.auth === 'user' || def.auth === 'agent' || def.auth === 'owner') codes.push('FORBIDDEN')
  if (def.auth === 'session' && def.method !== 'GET') codes.push('CSRF_REJECTED', 'ORIGIN_REJECTED')
  if (def.sameOrigin) codes.push('ORIGIN_REJECTED')
  if (def.flow) codes.push('FLOW_DISABLED')
  if (pathParamNames(def.path).length) codes.push('NOT_FOUND')
  const out: Record<string, ResponseConfig> = {}
  for (const [status, list] of byStatus(codes)) {
    out[String(status)] = { description: list.join(', '), content: { 'application/json': { schema: ref } } }
  }
  // Whatever else may come (a code the route's declarations do not list): the same body.
  out.default = {
    description: 'an error: `code` is one of the published list',
    content: { 'application/json': { schema: ref } },
  }
  return out
}

function operationId(def: AnyRoute, seen: Set<string>): string {
  const words = def.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
  const base = def.method.toLowerCase() + words.join('')
  let id = base
  for (let i = 2; seen.has(id); i++) id = `${base}${i}`
  seen.add(id)
  return id
}

/** "GET /api/xchain/status/:orderId" -> "xchain status (by orderId)". */
function derivedSummary(def: AnyRoute): string {
  const parts = def.path.split('/').filter((s) => s && s !== 'api')
  const words = parts.filter((s) => !s.startsWith(':')).join(' ')
  const params = pathParamNames(def.path)
  return `${words || 'root'}${params.length ? ` (by ${params.join(', ')})` : ''}`
}

/** Whether the generator knows every zod type in the schema (it throws on the ones it does not). */
function expressible(s: z.ZodTypeAny): boolean {
  try {
    const r = new OpenAPIRegistry()
    r.registerPath({
      method: 'post',
      path: '/probe',
      request: { body: { content: { 'application/json': { schema: s } } } },
      responses: {},
    })
    new OpenApiGeneratorV31(r.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 'probe', version: '0' },
    })
    return true
  } catch {
    return false
  }
}
