import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from 'pino'
import { BaseError } from '../../../src/errors/index.js'
import { isStoreUnavailable, storeUnavailable } from '../../store/unavailable.js'

/** Every failure leaves as `{ error, code }`. Only a bug answers 500, and it never shows a stack. */
export function errorHandler(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof BaseError) return c.json(err.toJSON(), err.status as 400)
    if (err instanceof HTTPException) {
      const code = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST'
      return c.json({ error: err.message || 'bad request', code }, err.status)
    }
    // The database being down or restarting is not a bug: the client retries (503), and what the
    // request wrote before is whole, since each write is one statement or one transaction.
    if (isStoreUnavailable(err)) {
      log.warn({ err, method: c.req.method, path: c.req.path }, 'store unavailable')
      const e = storeUnavailable(err)
      return c.json(e.toJSON(), 503)
    }
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error')
    return c.json({ error: 'internal error; the daemon log has the details', code: 'INTERNAL' }, 500)
  }
}
