import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BaseError } from '../errors/base.js'
import { errorCodes } from '../errors/codes.js'
import { exitCodeMeanings, exitCodes } from '../errors/exit-codes.js'
import { UsageError } from '../errors/usage.js'
import { ApiError, UnreachableError } from '../sdk/http-errors.js'
import { describeError, exitForService } from './describe-error.js'
import { CliError, usageError } from './errors.js'

/** The CLI's reference (docs/cli.md, moved out of the README) holds the exit-code table and the CLI's codes. */
const readme = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')

describe('exit codes', () => {
  it('docs/cli.md documents every exit code and no other', () => {
    const table = readme.split('<!-- exit-codes:start -->')[1]!.split('<!-- exit-codes:end -->')[0]!
    const rows = [...table.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]])
    expect(rows).toEqual(Object.values(exitCodes).map((c) => [c, exitCodeMeanings[c]]))
  })

  it("docs/cli.md names every code the CLI finds itself (the list's codes no service answers)", () => {
    const own = Object.entries(errorCodes)
      .filter(([, v]) => v.status === null)
      .map(([c]) => c)
    expect(own).toContain('USAGE')
    for (const code of own.filter(
      (c) => !['XCHAIN_LOCK_FAILED', 'SWAP_NOT_INCLUDED', 'BROWSER_WALLET_UNAVAILABLE'].includes(c),
    ))
      expect(readme).toContain(`\`${code}\``)
  })

  it('maps a service answer to its exit by the code table, and an unknown code by its status', () => {
    expect(exitForService(401, 'UNAUTHORIZED')).toBe(exitCodes.auth)
    expect(exitForService(403, 'FLOW_DISABLED')).toBe(exitCodes.rejected)
    expect(exitForService(404, 'NOT_FOUND')).toBe(exitCodes.notFound)
    expect(exitForService(400, 'AMOUNT_TOO_LARGE')).toBe(exitCodes.limitExceeded)
    expect(exitForService(502, 'PAYMENT_REFUSED')).toBe(exitCodes.paymentRefused)
    expect(exitForService(422, 'SELLER_METHOD_UNSUPPORTED')).toBe(exitCodes.paymentRefused)
    expect(exitForService(409, 'PRICE_ABOVE_MAX')).toBe(exitCodes.limitExceeded)
    expect(exitForService(403, 'LIMIT_EXCEEDED')).toBe(exitCodes.limitExceeded)
    expect(exitForService(403, 'FORBIDDEN')).toBe(exitCodes.auth)
    expect(exitForService(423, 'AGENT_FROZEN')).toBe(exitCodes.agentFrozen)
    expect(exitForService(403, 'APPROVAL_REQUIRED')).toBe(exitCodes.approvalRequired)
    expect(exitForService(503, 'CHAIN_UNAVAILABLE')).toBe(exitCodes.failure)
    // A code this build does not know (a newer daemon): by its status, never by its name's shape.
    expect(exitForService(403, 'SPEND_LIMIT_EXCEEDED')).toBe(exitCodes.rejected)
    expect(exitForService(502, 'PAYMENT_LOST')).toBe(exitCodes.failure)
    expect(exitForService(401, 'SOME_NEW_AUTH')).toBe(exitCodes.auth)
    // Every code of the table answered at its own status exits as the table says.
    for (const [code, v] of Object.entries(errorCodes))
      if (v.status !== null) expect(exitForService(v.status, code), code).toBe(v.exit)
  })

  it('maps failures to their codes', () => {
    expect(describeError(new UnreachableError('http://127.0.0.1:9', new Error('ECONNREFUSED')))).toMatchObject({
      code: 'DAEMON_UNREACHABLE',
      exit: 5,
    })
    expect(describeError(new ApiError(400, 'BAD_REQUEST', 'no'))).toMatchObject({ code: 'BAD_REQUEST', exit: 3 })
    // The daemon's request id travels to what the CLI prints, so a user can quote it.
    expect(
      describeError(new ApiError(400, 'BAD_REQUEST', 'no', { error: 'no', code: 'BAD_REQUEST', requestId: 'req_1' })),
    ).toMatchObject({ requestId: 'req_1' })
    expect(describeError(usageError('bad'))).toMatchObject({ code: 'USAGE', exit: 2 })
    expect(describeError(new CliError('NO_CREDENTIALS', 'no key'))).toMatchObject({ code: 'NO_CREDENTIALS', exit: 4 })
    expect(describeError(new CliError('RECEIPT_MALFORMED', 'not a receipt'))).toMatchObject({
      code: 'RECEIPT_MALFORMED',
      exit: 10,
    })
    expect(describeError(new CliError('CANCELLED', 'no'))).toMatchObject({ code: 'CANCELLED', exit: 130 })
    // Raised in this process: a UsageError whatever its code is usage; a service's code is a failure here.
    expect(describeError(new UsageError('DATA_DIR_UNUSABLE', 'a file'))).toMatchObject({
      code: 'DATA_DIR_UNUSABLE',
      exit: 2,
    })
    expect(describeError(new BaseError('PORT_IN_USE', 'taken'))).toMatchObject({ code: 'PORT_IN_USE', exit: 1 })
    expect(describeError(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toMatchObject({
      code: 'CANCELLED',
      exit: 130,
    })
    expect(describeError(new TypeError('boom'))).toMatchObject({ code: 'INTERNAL', exit: 1 })
  })

  it('has one error family: the CLI, usage and SDK errors are BaseErrors with a code of the list', () => {
    for (const e of [
      usageError('x'),
      new CliError('NOT_PARX', 'x'),
      new ApiError(404, 'NOT_FOUND', 'x'),
      new UnreachableError('http://127.0.0.1:9', 'x'),
    ]) {
      expect(e).toBeInstanceOf(BaseError)
      expect(Object.keys(errorCodes)).toContain(e.code)
    }
    expect(usageError('x')).toBeInstanceOf(UsageError)
    expect(new ApiError(404, 'NOT_FOUND', 'x').status).toBe(404)
    expect(new ApiError(418, 'FROM_A_NEWER_DAEMON', 'x')).toMatchObject({ code: 'FROM_A_NEWER_DAEMON', status: 418 })
  })
})
