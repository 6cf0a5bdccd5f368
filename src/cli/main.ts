import { CommanderError } from 'commander'
import { packageVersion } from '../config/package-root.js'
import { exitCodes } from '../errors/exit-codes.js'
import { type CliIo, processIo } from './context.js'
import { describeError } from './describe-error.js'
import { buildProgram } from './program.js'

/**
 * Runs the CLI and returns the exit code. The one place where errors become messages and codes:
 * text mode prints `error <message>` on stderr; with --output json the error is one JSON document
 * `{ "error": "<message>", "code": "<CODE>" }` on stdout (and nothing on stderr), like any result.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  // Whatever parx creates (the config dir and file, a data dir) is owner-only, whatever the umask.
  process.umask(0o077)
  const json = wantsJson(argv.slice(2))
  const version = packageVersion()
  const program = buildProgram(io, { version, json })
  try {
    process.exitCode = undefined
    await program.parseAsync(argv)
    return Number(process.exitCode ?? 0)
  } catch (e) {
    const { code, message, exit, requestId, fields } = describeError(e)
    if (e instanceof CommanderError && e.code === 'commander.version' && json) io.stdout(JSON.stringify({ version }))
    if (exit === exitCodes.ok) return exit
    if (json) io.stdout(JSON.stringify({ ...fields, error: message, code, ...(requestId ? { requestId } : {}) }))
    // Commander has already printed its own usage message on stderr.
    else if (!(e instanceof CommanderError))
      io.stderr(`error ${message}${requestId ? `\n(request id ${requestId}: quote it when reporting this)` : ''}`)
    return exit
  } finally {
    process.exitCode = undefined
  }
}

/** --output json in any spelling, known before parsing so that parse errors come out as JSON too. */
export function wantsJson(args: string[]): boolean {
  return args.some(
    (a, i) =>
      a === '--output=json' ||
      a === '-ojson' ||
      a === '-o=json' ||
      ((a === '--output' || a === '-o') && args[i + 1] === 'json'),
  )
}
