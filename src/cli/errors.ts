import { BaseError } from '../errors/base.js'
import { errorCodes } from '../errors/codes.js'
import type { ExitCode } from '../errors/exit-codes.js'
import { UsageError } from '../errors/usage.js'

/**
 * Codes of failures the CLI finds itself, before or instead of a service answer. They are in the
 * one list (src/errors/codes.ts, status null: never answered by a service) with their exit codes.
 */
export type CliErrorCode =
  | 'DAEMON_UNREACHABLE'
  | 'NOT_PARX'
  | 'NO_CREDENTIALS'
  | 'CONFIG_CORRUPT'
  | 'CANCELLED'
  | 'WAIT_TIMEOUT'
  | 'DISCOVERY_UNREADABLE'
  | 'RECEIPT_INVALID'
  | 'RECEIPT_MALFORMED'

/** A failure the CLI detected (no daemon, no key, a corrupt config...), with the exit code its code maps to. */
export class CliError extends BaseError {
  override name = 'CliError'
  declare readonly code: CliErrorCode
  readonly exit: ExitCode
  constructor(code: CliErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(code, message, opts)
    this.exit = errorCodes[code].exit
  }
}

/** What the user typed or configured is wrong: the one usage error (src/errors/usage.ts), code USAGE, exit 2. */
export const usageError = (message: string) => new UsageError('USAGE', message)
