import type { Context } from 'hono'
import type { z } from 'zod'
import { BaseError } from '../../../../src/errors/index.js'

/** Validates path parameters; a malformed one answers 400 BAD_REQUEST naming it. */
export function pathParams<S extends z.ZodTypeAny>(c: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.param())
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  throw new BaseError('BAD_REQUEST', `invalid path parameter '${issue.path.join('.')}': ${issue.message}`)
}
