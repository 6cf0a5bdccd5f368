import { z } from 'zod'
import { type ErrorCode, errorCodes } from '../../../src/errors/codes.js'

// The codes a service answers: the CLI's and the SDK's own (status null) never come over HTTP.
const codes = (Object.keys(errorCodes) as ErrorCode[]).filter((c) => errorCodes[c].status !== null) as [
  ErrorCode,
  ...ErrorCode[],
]

/**
 * Every non-2xx JSON answer of the daemon (daemon/http/middleware/errors.ts): the message, one code
 * of the one list (src/errors/codes.ts, published API), and the request's id to quote in a report.
 * Some codes add fields (LIMIT_EXCEEDED's limit, QUOTA_EXCEEDED's quota...): the object stays open.
 */
export const errorBody = z
  .object({
    error: z.string().describe('what went wrong and, where it helps, what to do'),
    code: z
      .enum(codes)
      .describe(codes.map((c) => `${c} (${errorCodes[c].status}): ${errorCodes[c].meaning}`).join('\n')),
    requestId: z.string().optional().describe('the X-Request-Id of the request, as logged in parx.log'),
  })
  .passthrough()

/** Statuses and codes of a list, for one error answer per status. */
export function byStatus(list: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>()
  for (const code of new Set(list)) {
    const status = errorCodes[code].status
    if (status === null) continue
    out.set(status, [...(out.get(status) ?? []), code])
  }
  return new Map([...out].sort(([a], [b]) => a - b))
}
