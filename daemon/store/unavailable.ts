import { BaseError } from '../../src/errors/index.js'

// Socket-level failures (pg) and SQLite's "cannot get at the file" results.
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
])
// PostgreSQL SQLSTATEs meaning "the server is not serving you now": connection exceptions (08),
// shutting down or starting up (57P01-57P03), too many connections (53300).
const unreachableStates = /^(08...|57P0[123]|53300)$/
const unreachableMessages = new RegExp(
  [
    'Connection terminated',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error',
    'Cannot use a pool after calling end',
    'database connection is not open',
  ].join('|'),
  'i',
)

/** True when `e` (or one of its causes) says the store cannot be reached, rather than a bug in a query. */
export function isStoreUnavailable(e: unknown): boolean {
  for (
    let err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    err && depth < 5;
    err = err.cause as typeof err, depth++
  ) {
    if (err instanceof BaseError) return err.code === 'STORE_UNAVAILABLE'
    const code = typeof err.code === 'string' ? err.code : ''
    if (unreachableCodes.has(code) || unreachableStates.test(code) || code.startsWith('SQLITE_IOERR')) return true
    if (typeof err.message === 'string' && unreachableMessages.test(err.message)) return true
    // AggregateError from a dual-stack connect (both 127.0.0.1 and ::1 refused)
    if (
      Array.isArray((err as { errors?: unknown }).errors) &&
      (err as { errors: unknown[] }).errors.some(isStoreUnavailable)
    )
      return true
  }
  return false
}

/** The 503 a request gets while the store cannot be reached; it is retried by the client. */
export function storeUnavailable(cause: unknown): BaseError {
  return new BaseError('STORE_UNAVAILABLE', 'the store (database) cannot be reached right now; retry shortly', {
    cause,
  })
}
