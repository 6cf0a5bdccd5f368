import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from 'pino'
import { BaseError } from '../../../src/errors/index.js'
import { redactText } from '../../redact.js'
import { isStoreUnavailable, storeUnavailable } from '../../store/unavailable.js'
import { requestIdOf } from './request-id.js'

/**
 * Every failure leaves as `{ error, code, requestId }` (the id the answer's X-Request-Id carries,
 * to quote when reporting it). Only a bug answers 500, and it never shows a stack.
 */
export function errorHandler(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof BaseError) {
      // One line per refusal, so "my payment failed" is found in parx.log by its request id (the
      // mixin adds it). Rate-limit refusals only at debug: a flood would otherwise fill the log.
      log[err.code === 'RATE_LIMITED' ? 'debug' : 'info'](
        { method: c.req.method, path: c.req.path, status: err.status, code: err.code },
        'request refused',
      )
      return c.json(withRequestId(publicBody(err, log, c), c), err.status as 400)
    }
    if (err instanceof HTTPException) {
      const code = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST'
      return c.json(withRequestId({ error: err.message || 'bad request', code }, c), err.status)
    }
    // The database being down or restarting is not a bug: the client retries (503), and what the
    // request wrote before is whole, since each write is one statement or one transaction.
    if (isStoreUnavailable(err)) {
      log.warn({ err, method: c.req.method, path: c.req.path }, 'store unavailable')
      const e = storeUnavailable(err)
      return c.json(withRequestId(e.toJSON(), c), 503)
    }
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error')
    return c.json(withRequestId({ error: 'internal error; the daemon log has the details', code: 'INTERNAL' }, c), 500)
  }
}

/** An error body with the request's id, when the app named the request (daemon/http/middleware/request-id.ts). */
export function withRequestId<T extends object>(body: T, c: Context): T & { requestId?: string } {
  const requestId = requestIdOf(c)
  return requestId ? { ...body, requestId } : body
}

/**
 * A BaseError's answer without what an upstream's words may carry: messages built from a caught
 * error can quote an RPC URL and its key, or a request body (daemon/redact.ts). The log keeps the
 * whole error, so nothing is lost to the operator.
 */
function publicBody(err: BaseError, log: Logger, c: Context): Record<string, unknown> {
  const body = err.toJSON()
  let changed = false
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) {
    const r = typeof v === 'string' ? redactText(v) : v
    if (r !== v) changed = true
    out[k] = r
  }
  if (changed) log.warn({ err, method: c.req.method, path: c.req.path }, 'upstream detail withheld from the answer')
  return out
}
