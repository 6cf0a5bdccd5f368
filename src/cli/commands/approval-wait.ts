import { ApiError } from '../../sdk/http-errors.js'
import { usageError } from '../errors.js'
import type { PlatformDeps } from './platform-shared.js'

/** `--wait-approval` without seconds, and the most it takes: bounded, and the platform expires approvals anyway. */
export const WAIT_APPROVAL_DEFAULT_SECONDS = 300
const WAIT_APPROVAL_MAX_SECONDS = 3600
const POLL_MS = 1000

/** `--wait-approval [seconds]` (or the MCP field) as a number of seconds; undefined: do not wait. */
export function waitSeconds(v: string | boolean | undefined, flag: string): number | undefined {
  if (v === undefined || v === false) return undefined
  if (v === true) return WAIT_APPROVAL_DEFAULT_SECONDS
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1 || n > WAIT_APPROVAL_MAX_SECONDS)
    throw usageError(`${flag} '${v}' is not a whole number of seconds from 1 to ${WAIT_APPROVAL_MAX_SECONDS}`)
  return n
}

/**
 * One spend that the platform may hold for the owner's approval (pay and send): `call` runs with
 * the approval id given, if any. Held (APPROVAL_REQUIRED) and asked to wait: the decision is polled
 * for at most `wait` seconds, then the same request goes once more with the approval, and the
 * platform says whether it was approved, denied or expired when it is used. Not waiting, or still
 * pending at the end: the APPROVAL_REQUIRED error (exit 11) with its approvalId, to come back with.
 */
export async function withApproval<T>(
  deps: PlatformDeps,
  o: { wait: number | undefined; approvalId: string | undefined; retry: (id: string) => string },
  call: (approvalId: string | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await call(o.approvalId)
  } catch (e) {
    if (o.wait === undefined || !(e instanceof ApiError) || e.code !== 'APPROVAL_REQUIRED') throw e
    const approvalId = (e.body as { approvalId: string }).approvalId
    deps.ctx.stderr(
      `Approval ${approvalId} is waiting for the agent's owner (parx ` +
        `approvals approve ${approvalId}); waiting up to ${o.wait} s.`,
    )
    if (!(await decided(deps, approvalId, o.wait))) {
      e.message = `${e.message} (still pending after ${o.wait} s: ${o.retry(approvalId)} once it is approved)`
      throw e
    }
    return call(approvalId)
  }
}

/** Polls the approval until it is no longer pending (true) or `seconds` have passed (false). */
async function decided(deps: PlatformDeps, approvalId: string, seconds: number): Promise<boolean> {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const a = await deps.platform.showApproval({ params: { approvalId } })
    if (a.state !== 'pending') return true
    if (Date.now() >= until) return false
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, until - Date.now()))))
  }
}
