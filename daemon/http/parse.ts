import type { Context } from 'hono'
import type { z } from 'zod'
import { BaseError } from '../../src/errors/index.js'

export const DEFAULT_MAX_BODY = 64 * 1024

/** Reads a JSON body within a size limit and validates it; errors name the field. */
export async function jsonBody<S extends z.ZodTypeAny>(c: Context, schema: S, maxBytes = DEFAULT_MAX_BODY): Promise<z.infer<S>> {
  const declared = Number(c.req.header('content-length') ?? 0)
  if (declared > maxBytes) throw tooLarge(maxBytes)
  const buf = await c.req.arrayBuffer()
  if (buf.byteLength > maxBytes) throw tooLarge(maxBytes)
  let data: unknown
  try {
    data = JSON.parse(new TextDecoder().decode(buf))
  } catch {
    throw new BaseError('MALFORMED_JSON', 'the request body is not valid JSON; send a JSON object with Content-Type: application/json')
  }
  return validate(schema, data, 'body')
}

/** Validates query parameters; a missing or malformed one answers 400 BAD_REQUEST naming it. */
export function query<S extends z.ZodTypeAny>(c: Context, schema: S): z.infer<S> {
  return validate(schema, c.req.query(), 'query')
}

export function validate<S extends z.ZodTypeAny>(schema: S, data: unknown, where: 'body' | 'query'): z.infer<S> {
  const parsed = schema.safeParse(data)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const field = issue.path.join('.')
  const missing = issue.code === 'invalid_type' && issue.received === 'undefined'
  const message = field
    ? missing
      ? `missing ${where === 'query' ? 'query parameter' : 'field'} '${field}'`
      : `invalid ${where === 'query' ? 'query parameter' : 'field'} '${field}': ${issue.message}`
    : `invalid request ${where}: ${issue.message}`
  throw new BaseError('BAD_REQUEST', message)
}

function tooLarge(max: number) {
  return new BaseError('PAYLOAD_TOO_LARGE', `the request body is larger than ${max} bytes`)
}
