import type { Context } from 'hono'
import type { IncomingMessage } from 'node:http'
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
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  const buf = incoming ? await readStream(incoming, maxBytes) : Buffer.from(await c.req.arrayBuffer())
  if (buf.byteLength > maxBytes) throw tooLarge(maxBytes)
  const text = buf.toString('utf8').trim()
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch {
    throw new BaseError('MALFORMED_JSON', 'the request body is not valid JSON; send a JSON object with Content-Type: application/json')
  }
}

/**
 * Served over HTTP, the body is read from Node's request itself: going through the fetch
 * Request (c.req.arrayBuffer) builds a Request and a web stream per call, which was a tenth of
 * the facilitator's CPU under load. Stops reading past the limit (the declared length may lie).
 */
async function readStream(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.byteLength
    if (size > maxBytes) throw tooLarge(maxBytes)
    chunks.push(chunk)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function tooLarge(max: number) {
  return new BaseError('PAYLOAD_TOO_LARGE', `the request body is larger than ${max} bytes`)
}
