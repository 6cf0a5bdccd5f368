import type { z } from 'zod'
import { type ErrorCode, errorCodes } from '../errors/codes.js'
import { BaseError } from '../errors/index.js'

/**
 * Validates a request's body, query or path parameters and turns the first problem into the
 * BaseError a client sees: the field is named, a malformed path parameter is NOT_FOUND (like an id
 * that does not exist), and a check that declares its own code (`ctx.addIssue({ params: { code } })`,
 * e.g. UNKNOWN_TOKEN, NETWORK_UNSUPPORTED) answers with it rather than a generic BAD_REQUEST. The
 * daemon's app runs it on every route's declared schemas; typed clients run it before sending.
 *
 * @example
 * parseInput(sendBodyFor('local-radius'), { to, amount: '1', token: 'XUSD' }, 'body')
 * // throws BaseError UNKNOWN_TOKEN: invalid field 'token': 'XUSD' is not a token of local-radius ...
 */
export function parseInput<S extends z.ZodTypeAny>(
  schema: S,
  data: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
  const parsed = schema.safeParse(data)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const field = issue.path.join('.')
  const missing = issue.code === 'invalid_type' && issue.received === 'undefined'
  const noun = where === 'query' ? 'query parameter' : where === 'path' ? 'path parameter' : 'field'
  const message = field
    ? missing
      ? `missing ${noun} '${field}'`
      : `invalid ${noun} '${field}': ${issue.message}`
    : `invalid request ${where}: ${issue.message}`
  const declared = issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined
  const code: ErrorCode =
    declared && declared in errorCodes ? (declared as ErrorCode) : where === 'path' ? 'NOT_FOUND' : 'BAD_REQUEST'
  throw new BaseError(code, message)
}
