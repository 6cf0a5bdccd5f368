import { exitCodes, type ExitCode } from './exit-codes.js'

/**
 * Codes of failures the CLI finds itself, before or instead of a service answer. They appear as
 * `code` in `--output json` errors beside the service's codes (src/errors/codes.ts), and never
 * collide with them. Published: never rename.
 */
export const cliErrorCodes = {
  USAGE: exitCodes.usage,
  DAEMON_UNREACHABLE: exitCodes.unreachable,
  NOT_PARX: exitCodes.unreachable,
  NO_CREDENTIALS: exitCodes.auth,
  CONFIG_CORRUPT: exitCodes.failure,
  CANCELLED: exitCodes.cancelled,
  /** `--wait` gave up before a final state (the thing waited for goes on). */
  WAIT_TIMEOUT: exitCodes.failure,
  /** `parx discover`: the facilitator's discovery listing did not answer, or not in the bazaar's shape. */
  DISCOVERY_UNREADABLE: exitCodes.failure,
  /** `parx receipt verify`: the signature does not recover to the expected signer (a field was changed, or another key signed it). */
  RECEIPT_INVALID: exitCodes.receiptInvalid,
  /** `parx receipt verify`: the input is not a receipt (not JSON, or a field missing or of the wrong form). */
  RECEIPT_MALFORMED: exitCodes.receiptInvalid,
} as const satisfies Record<string, ExitCode>

export type CliErrorCode = keyof typeof cliErrorCodes

/** A failure the CLI detected (bad flag, no daemon, no key...), with the code and exit code it maps to. */
export class CliError extends Error {
  override name = 'CliError'
  readonly exit: ExitCode
  constructor(readonly code: CliErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.exit = cliErrorCodes[code]
  }
}

export const usageError = (message: string) => new CliError('USAGE', message)
