import { CommanderError } from 'commander'
import { BaseError } from '../errors/base.js'
import { UsageError } from '../errors/usage.js'
import { ApiError, UnreachableError } from '../sdk/http-errors.js'
import { CliError } from './errors.js'
import { exitCodes, type ExitCode } from './exit-codes.js'

/** `requestId`: the daemon's id for a failed request (docs/operations.md "Request ids"), printed so a user can quote it.
 * `fields`: the service error body's own fields beside error and code, printed in the --output json error document. */
export type DescribedError = { code: string; message: string; exit: ExitCode; requestId?: string; fields?: Record<string, unknown> }

/**
 * Service codes with an exit code of their own, beyond what their HTTP status says. Named here
 * (with the platform's codes of docs/platform-api.md) and by pattern, so a later code of the same
 * kind maps the same way.
 */
const authCodes = new Set(['UNAUTHORIZED', 'FORBIDDEN'])
const limitCodes = /(^|_)LIMIT_EXCEEDED$|^AMOUNT_TOO_LARGE$|^PRICE_ABOVE_MAX$/
const paymentRefusedCodes = /^PAYMENT_|^SELLER_(TERMS_MALFORMED|METHOD_UNSUPPORTED|FAILED)$/

/** Maps any error to what the user sees and the exit code: the one table from failures to codes. */
export function describeError(e: unknown): DescribedError {
  if (e instanceof CommanderError) {
    const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || (e.code === 'commander.help' && e.exitCode === 0)
    // `parx` or `parx keys` alone: help on stderr and a usage exit, as a missing command is.
    const message = e.code === 'commander.help' ? 'a command is needed: see `parx --help`' : e.message.replace(/^error: /, '')
    return { code: 'USAGE', message, exit: ok ? exitCodes.ok : exitCodes.usage }
  }
  if (e instanceof CliError) return { code: e.code, message: e.message, exit: e.exit }
  if (e instanceof UnreachableError) {
    return {
      code: 'DAEMON_UNREACHABLE',
      message: `${e.message}\nIs the daemon running? Start it with \`parx serve\`, or pass --api-url (or PARX_API_URL; PARX_AGENTS_URL for the platform).`,
      exit: exitCodes.unreachable,
    }
  }
  if (e instanceof ApiError) {
    // The body's own fields (APPROVAL_REQUIRED's approvalId, LIMIT_EXCEEDED's remainingUsd...) stay in the JSON document: an agent branches on them.
    const { error: _e, code: _c, requestId: _r, ...fields } = (e.body && typeof e.body === 'object' ? e.body : {}) as Record<string, unknown>
    return { code: e.code, message: e.message, exit: exitForService(e.status, e.code), ...(e.requestId ? { requestId: e.requestId } : {}), ...(Object.keys(fields).length ? { fields } : {}) }
  }
  if (e instanceof BaseError) {
    // A UsageError is input the user can fix (a flag, a path, a data dir): the usage code, whatever its code.
    const exit = e instanceof UsageError || e.code === 'BAD_REQUEST' ? exitCodes.usage : e.code === 'UNAUTHORIZED' ? exitCodes.auth : exitCodes.failure
    return { code: e.code, message: e.details ? `${e.message}\n${e.details}` : e.message, exit }
  }
  const name = (e as { name?: string })?.name
  if (name === 'ExitPromptError' || name === 'AbortPromptError') return { code: 'CANCELLED', message: 'cancelled', exit: exitCodes.cancelled }
  return { code: 'INTERNAL', message: (e as Error)?.stack ?? String(e), exit: exitCodes.failure }
}

export function exitForService(status: number, code: string): ExitCode {
  if (status === 401 || authCodes.has(code)) return exitCodes.auth
  if (code === 'AGENT_FROZEN') return exitCodes.agentFrozen
  if (code === 'APPROVAL_REQUIRED') return exitCodes.approvalRequired
  if (limitCodes.test(code)) return exitCodes.limitExceeded
  if (paymentRefusedCodes.test(code)) return exitCodes.paymentRefused
  if (status === 404 && code === 'NOT_FOUND') return exitCodes.notFound
  if (status >= 400 && status < 500) return exitCodes.rejected
  return exitCodes.failure
}
