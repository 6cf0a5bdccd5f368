import { BaseError } from '../errors/base.js'
import type { ErrorCode } from '../errors/codes.js'

/**
 * A non-2xx answer from a parx service, carrying its `{ error, code }` body. The one ApiError of the
 * SDK, the CLI and the dashboard. Its code is a string beside the list's: a newer service may
 * answer a code this build does not know (`HTTP_<status>` when the body has none).
 */
export class ApiError extends BaseError<ErrorCode | (string & {})> {
  override name = 'ApiError'
  constructor(
    status: number,
    code: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(code, message, { status })
  }

  /**
   * The daemon's id for the failed request (its X-Request-Id, in every error body): what to quote when reporting it.
   */
  get requestId(): string | undefined {
    const id = (this.body as { requestId?: unknown } | undefined)?.requestId
    return typeof id === 'string' ? id : undefined
  }
}

/** The daemon could not be reached at all (not running, wrong URL). */
export class UnreachableError extends BaseError {
  override name = 'UnreachableError'
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super('DAEMON_UNREACHABLE', `cannot reach ${url}: ${(cause as Error)?.message ?? cause}`, { cause })
  }
}
