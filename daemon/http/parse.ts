import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import type { z } from 'zod'
import { BaseError } from '../../src/errors/index.js'
import { parseInput } from '../../src/sdk/parse-input.js'
import { declaredLength, readBody, readWebBody, tooLarge } from './body.js'
import type { AnyRoute } from './route.js'

export const DEFAULT_MAX_BODY = 64 * 1024

/**
 * The route's declared input, validated: path parameters, query and JSON body, in that order, each
 * against its schema (src/sdk/parse-input.ts names the field in the error). A body is read only
 * when the route declares one, within `maxBody`; an empty body is `{}`, so routes whose fields are
 * all optional take none.
 */
export async function readInput(
  c: Context,
  def: AnyRoute,
): Promise<{ body: unknown; query: unknown; params: unknown }> {
  const params = def.params ? parseInput(def.params as z.ZodTypeAny, c.req.param(), 'path') : undefined
  const query = def.query ? parseInput(def.query as z.ZodTypeAny, c.req.query(), 'query') : undefined
  const body = def.body
    ? parseInput(def.body as z.ZodTypeAny, await readJson(c, def.maxBody ?? DEFAULT_MAX_BODY), 'body')
    : undefined
  return { body, query, params }
}

/**
 * A JSON body within a size limit: refused by its declared length before it is read, and never
 * held past the limit (daemon/http/body.ts). A body is parsed only under a JSON Content-Type: a
 * browser sends text/plain, a form type or none across sites without asking (no CORS preflight),
 * so a page elsewhere could otherwise post JSON here with the visitor's cookies, e.g. sign the
 * visitor in as the attacker (docs/hosting.md "Hosting safely"). The body is read first (within
 * the cap), so the client gets to read the 415.
 */
export async function readJson(c: Context, maxBytes: number): Promise<unknown> {
  const buf = await readRawBody(c, maxBytes)
  const text = buf.toString('utf8').trim()
  if (!text) return {}
  const type = c.req.header('content-type')
  if (!isJsonType(type)) {
    throw new BaseError(
      'UNSUPPORTED_MEDIA_TYPE',
      `this route reads a JSON body; send it with Content-Type: ` +
        `application/json${type ? `, not ${type.slice(0, 80)}` : ''}`,
    )
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new BaseError(
      'MALFORMED_JSON',
      'the request body is not valid JSON; send a JSON object with Content-Type: application/json',
    )
  }
}

/** application/json or a +json type (application/problem+json...), whatever its parameters. */
export function isJsonType(header: string | undefined): boolean {
  const essence = header?.split(';', 1)[0]?.trim().toLowerCase()
  return essence === 'application/json' || (!!essence && /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence))
}

/**
 * The body's bytes within `maxBytes`. Served over HTTP, they are read from Node's request itself:
 * going through the fetch Request (c.req.arrayBuffer) builds a Request and a web stream per call,
 * which was a tenth of the facilitator's CPU under load, and would read an unbounded body whole.
 */
export function readRawBody(c: Context, maxBytes: number): Promise<Buffer> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming ? readBody(incoming, maxBytes) : readWebBody(c.req.raw, maxBytes)
}

/**
 * Refuses, before anything else is looked at, a body whose declared length is over the route's
 * cap: 413 without reading it into memory (what is already on its way is drained, within bounds,
 * so the client gets to read the answer).
 */
export async function refuseDeclaredOversize(c: Context, maxBytes: number): Promise<void> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  const declared = declaredLength(incoming?.headers ?? c.req.raw.headers)
  if (declared === undefined || declared <= maxBytes) return
  if (incoming) await readBody(incoming, maxBytes)
  throw tooLarge(maxBytes)
}
