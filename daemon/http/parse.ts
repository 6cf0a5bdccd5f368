import type { Context } from 'hono'
import type { z } from 'zod'
import { BaseError } from '../../src/errors/index.js'
import { parseInput } from '../../src/sdk/parse-input.js'
import type { AnyRoute } from './route.js'

export const DEFAULT_MAX_BODY = 64 * 1024

/**
 * The route's declared input, validated: path parameters, query and JSON body, in that order, each
 * against its schema (src/sdk/parse-input.ts names the field in the error). A body is read only
 * when the route declares one, within `maxBody`; an empty body is `{}`, so routes whose fields are
 * all optional take none.
 */
export async function readInput(c: Context, def: AnyRoute): Promise<{ body: unknown; query: unknown; params: unknown }> {
  const params = def.params ? parseInput(def.params as z.ZodTypeAny, c.req.param(), 'path') : undefined
  const query = def.query ? parseInput(def.query as z.ZodTypeAny, c.req.query(), 'query') : undefined
  const body = def.body ? parseInput(def.body as z.ZodTypeAny, await readJson(c, def.maxBody ?? DEFAULT_MAX_BODY), 'body') : undefined
  return { body, query, params }
}

/** A JSON body within a size limit, checked by its declared length before it is read. */
export async function readJson(c: Context, maxBytes: number): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? 0)
  if (declared > maxBytes) throw tooLarge(maxBytes)
  const buf = await c.req.arrayBuffer()
  if (buf.byteLength > maxBytes) throw tooLarge(maxBytes)
  const text = new TextDecoder().decode(buf).trim()
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch {
    throw new BaseError('MALFORMED_JSON', 'the request body is not valid JSON; send a JSON object with Content-Type: application/json')
  }
}

function tooLarge(max: number) {
  return new BaseError('PAYLOAD_TOO_LARGE', `the request body is larger than ${max} bytes`)
}
