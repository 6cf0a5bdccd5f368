import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { errorCodes } from '../errors/codes.js'
import { describeError, exitForService } from './describe-error.js'
import { cliErrorCodes, CliError } from './errors.js'
import { exitCodeMeanings, exitCodes } from './exit-codes.js'
import { ApiError, UnreachableError } from '../sdk/http-errors.js'

/** The CLI's reference (docs/cli.md, moved out of the README) holds the exit-code table and the CLI's codes. */
const readme = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')

describe('exit codes', () => {
  it('docs/cli.md documents every exit code and no other', () => {
    const table = readme.split('<!-- exit-codes:start -->')[1]!.split('<!-- exit-codes:end -->')[0]!
    const rows = [...table.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]])
    expect(rows).toEqual(Object.values(exitCodes).map((c) => [c, exitCodeMeanings[c]]))
  })

  it('docs/cli.md names every CLI error code, and none collides with a service code', () => {
    for (const code of Object.keys(cliErrorCodes)) {
      expect(readme).toContain(`\`${code}\``)
      expect(Object.keys(errorCodes)).not.toContain(code)
    }
  })

  it('maps failures to their codes', () => {
    expect(exitForService(401, 'UNAUTHORIZED')).toBe(exitCodes.auth)
    expect(exitForService(403, 'FLOW_DISABLED')).toBe(exitCodes.rejected)
    expect(exitForService(404, 'NOT_FOUND')).toBe(exitCodes.notFound)
    expect(exitForService(400, 'AMOUNT_TOO_LARGE')).toBe(exitCodes.limitExceeded)
    expect(exitForService(403, 'SPEND_LIMIT_EXCEEDED')).toBe(exitCodes.limitExceeded)
    expect(exitForService(502, 'PAYMENT_REFUSED')).toBe(exitCodes.paymentRefused)
    expect(exitForService(422, 'SELLER_METHOD_UNSUPPORTED')).toBe(exitCodes.paymentRefused)
    expect(exitForService(409, 'PRICE_ABOVE_MAX')).toBe(exitCodes.limitExceeded)
    expect(exitForService(403, 'LIMIT_EXCEEDED')).toBe(exitCodes.limitExceeded)
    expect(exitForService(403, 'FORBIDDEN')).toBe(exitCodes.auth)
    expect(exitForService(503, 'CHAIN_UNAVAILABLE')).toBe(exitCodes.failure)
    expect(describeError(new UnreachableError('http://127.0.0.1:9', new Error('ECONNREFUSED')))).toMatchObject({ code: 'DAEMON_UNREACHABLE', exit: 5 })
    expect(describeError(new ApiError(400, 'BAD_REQUEST', 'no'))).toMatchObject({ code: 'BAD_REQUEST', exit: 3 })
    // The daemon's request id travels to what the CLI prints, so a user can quote it.
    expect(describeError(new ApiError(400, 'BAD_REQUEST', 'no', { error: 'no', code: 'BAD_REQUEST', requestId: 'req_1' }))).toMatchObject({ requestId: 'req_1' })
    expect(describeError(new CliError('USAGE', 'bad'))).toMatchObject({ code: 'USAGE', exit: 2 })
    expect(describeError(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toMatchObject({ code: 'CANCELLED', exit: 130 })
    expect(describeError(new TypeError('boom'))).toMatchObject({ code: 'INTERNAL', exit: 1 })
  })
})
