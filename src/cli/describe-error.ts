import { CommanderError } from 'commander'
import { BaseError } from '../errors/base.js'
import { errorCodes } from '../errors/codes.js'
import { type ExitCode, exitCodes } from '../errors/exit-codes.js'
import { UsageError } from '../errors/usage.js'
import { ApiError, UnreachableError } from '../sdk/http-errors.js'

/**
 * `requestId`: the daemon's id for a failed request (docs/operations.md "Request ids"), printed so
 * a user can quote it. `fields`: the service error body's own fields beside error and code, printed
 * in the --output json error document.
 */
export type DescribedError = {
  code: string
  message: string
  exit: ExitCode
  requestId?: string
  fields?: Record<string, unknown>
}

/** Maps any error to what the user sees and the exit code: the one table from failures to codes. */
export function describeError(e: unknown): DescribedError {
  if (e instanceof CommanderError) {
    const ok =
      e.code === 'commander.helpDisplayed' ||
      e.code === 'commander.version' ||
      (e.code === 'commander.help' && e.exitCode === 0)
    // `parx` or `parx keys` alone: help on stderr and a usage exit, as a missing command is.
    const message =
      e.code === 'commander.help' ? 'a command is needed: see `parx --help`' : e.message.replace(/^error: /, '')
    return { code: 'USAGE', message, exit: ok ? exitCodes.ok : exitCodes.usage }
  }
  if (e instanceof UnreachableError) {
    return {
      code: 'DAEMON_UNREACHABLE',
      message:
        `${e.message}\nIs the daemon running? Start it with \`parx serve\`, ` +
        `or pass --api-url (or PARX_API_URL; PARX_AGENTS_URL for the platform).`,
      exit: exitCodes.unreachable,
    }
  }
  if (e instanceof ApiError) {
    // The body's own fields (APPROVAL_REQUIRED's approvalId, LIMIT_EXCEEDED's remainingUsd...) stay in the JSON
    // document: an agent branches on them.
    const {
      error: _e,
      code: _c,
      requestId: _r,
      ...fields
    } = (e.body && typeof e.body === 'object' ? e.body : {}) as Record<string, unknown>
    return {
      code: e.code,
      message: e.message,
      exit: exitForService(e.status, e.code),
      ...(e.requestId ? { requestId: e.requestId } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
    }
  }
  if (e instanceof BaseError)
    return { code: e.code, message: e.details ? `${e.message}\n${e.details}` : e.message, exit: exitForLocal(e) }
  const name = (e as { name?: string })?.name
  if (name === 'ExitPromptError' || name === 'AbortPromptError')
    return { code: 'CANCELLED', message: 'cancelled', exit: exitCodes.cancelled }
  return { code: 'INTERNAL', message: (e as Error)?.stack ?? String(e), exit: exitCodes.failure }
}

/**
 * The exit code of an error raised in this process (by the CLI, the SDK, or `parx serve`'s start):
 * a UsageError is input the user can fix (a flag, a path, a data dir), so the usage code whatever
 * its code; a code no service answers (the CLI's own, CliError, and the SDK's) exits as the table says; a
 * service's code raised here is a failure of this process, not a refusal by a service.
 */
function exitForLocal(e: BaseError<string>): ExitCode {
  if (e instanceof UsageError || e.code === 'BAD_REQUEST') return exitCodes.usage
  if (e.code === 'UNAUTHORIZED') return exitCodes.auth
  const known = Object.hasOwn(errorCodes, e.code) ? errorCodes[e.code as keyof typeof errorCodes] : undefined
  return known && known.status === null ? known.exit : exitCodes.failure
}

/**
 * The exit code of a service's answer: its code's, from the one table (src/errors/codes.ts). A 401
 * is an auth failure whatever its code; a code this build does not know (a newer daemon) goes by
 * its status: 4xx rejected, anything else a failure.
 */
export function exitForService(status: number, code: string): ExitCode {
  if (status === 401) return exitCodes.auth
  const known = Object.hasOwn(errorCodes, code) ? errorCodes[code as keyof typeof errorCodes] : undefined
  if (known) return known.exit
  if (status >= 400 && status < 500) return exitCodes.rejected
  return exitCodes.failure
}
