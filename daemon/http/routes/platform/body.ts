import type { Context } from 'hono'
import type { z } from 'zod'
import { BaseError } from '../../../../src/errors/index.js'
import { parsePlatform } from '../../../../src/sdk/platform/parse.js'
import { DEFAULT_MAX_BODY } from '../../parse.js'

/**
 * A platform body, validated by the contract's schema (src/sdk/platform) with parsePlatform, so a
 * registry problem answers with its own code (UNKNOWN_TOKEN, NETWORK_UNSUPPORTED), as the client
 * predicts. An empty body is `{}`: routes whose fields are all optional take none.
 */
export async function platformBody<S extends z.ZodTypeAny>(c: Context, schema: S): Promise<z.output<S>> {
  const declared = Number(c.req.header('content-length') ?? 0)
  const buf = declared > DEFAULT_MAX_BODY ? undefined : await c.req.arrayBuffer()
  if (!buf || buf.byteLength > DEFAULT_MAX_BODY) throw new BaseError('PAYLOAD_TOO_LARGE', `the request body is larger than ${DEFAULT_MAX_BODY} bytes`)
  const text = new TextDecoder().decode(buf).trim()
  let data: unknown = {}
  if (text) {
    try {
      data = JSON.parse(text)
    } catch {
      throw new BaseError('MALFORMED_JSON', 'the request body is not valid JSON; send a JSON object with Content-Type: application/json')
    }
  }
  return parsePlatform(schema, data, 'body')
}

/** Path parameters: a malformed id is NOT_FOUND, like an id that does not exist. */
export function platformParams<S extends z.ZodTypeAny>(c: Context, schema: S): z.output<S> {
  return parsePlatform(schema, c.req.param(), 'path')
}
