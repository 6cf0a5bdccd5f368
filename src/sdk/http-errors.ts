/** A non-2xx answer from a parx service, carrying its `{ error, code }` body. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(readonly status: number, readonly code: string, message: string, readonly body?: unknown) {
    super(message)
  }

  /** The daemon's id for the failed request (its X-Request-Id, in every error body): what to quote when reporting it. */
  get requestId(): string | undefined {
    const id = (this.body as { requestId?: unknown } | undefined)?.requestId
    return typeof id === 'string' ? id : undefined
  }
}

/** The daemon could not be reached at all (not running, wrong URL). */
export class UnreachableError extends Error {
  override name = 'UnreachableError'
  constructor(readonly url: string, cause: unknown) {
    super(`cannot reach ${url}: ${(cause as Error)?.message ?? cause}`, { cause })
  }
}
