import { type ErrorCode, errorCodes } from './codes.js'

export type BaseErrorParameters = {
  /** Extra lines shown after the message in a terminal (what to do next). */
  details?: string
  cause?: unknown
  /** Overrides the code's default HTTP status (rare: e.g. 401 without a code on operator routes). */
  status?: number
  /**
   * Machine-readable fields sent beside `error` and `code` (e.g. LIMIT_EXCEEDED's limit, amountUsd,
   * remainingUsd), so a client can branch without parsing the message. Never `error` or `code`.
   */
  fields?: Record<string, string | number | boolean | null>
}

/**
 * The one error type of parx. Everything a client may see is a BaseError with a code;
 * anything else reaching the HTTP error handler is a bug and answers 500 INTERNAL.
 *
 * `Code` is the list's codes; only the SDK's ApiError widens it, since a newer service may answer
 * a code this build does not know (`NoInfer`: `new BaseError('TYPO', ...)` does not compile).
 */
export class BaseError<Code extends string = ErrorCode> extends Error {
  override name = 'ParxError'
  readonly code: Code
  readonly status: number
  readonly details?: string
  readonly fields?: Record<string, string | number | boolean | null>

  constructor(code: NoInfer<Code>, message: string, params: BaseErrorParameters = {}) {
    super(message, params.cause === undefined ? undefined : { cause: params.cause })
    this.code = code
    // A code no service answers (status null: the CLI's and the SDK's own) reaching an HTTP answer is a bug: 500.
    this.status = params.status ?? (errorCodes as Record<string, { status: number | null }>)[code]?.status ?? 500
    this.details = params.details
    this.fields = params.fields
  }

  toJSON(): { error: string; code: Code } & Record<string, unknown> {
    return { ...this.fields, error: this.message, code: this.code }
  }
}

export const badRequest = (message: string) => new BaseError('BAD_REQUEST', message)

export function isBaseError(e: unknown): e is BaseError {
  return e instanceof BaseError
}
