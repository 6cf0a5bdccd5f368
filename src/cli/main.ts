import { CommanderError } from 'commander'
import chalk from 'chalk'
import { BaseError, UsageError } from '../errors/index.js'
import { ApiError, UnreachableError } from '../sdk/http.js'
import { exitCodes } from './exit-codes.js'
import { NoOperatorTokenError } from './operator-token.js'
import { buildProgram } from './program.js'

/** Runs the CLI and returns the exit code. The one place where errors become messages and codes. */
export async function main(argv: string[], io = { stdout: console.log, stderr: console.error, env: process.env }): Promise<number> {
  // Whatever parx creates (the config dir and file, a data dir) is owner-only, whatever the umask.
  process.umask(0o077)
  const program = buildProgram(io)
  const json = argv.includes('--output=json') || argv.some((a, i) => (a === '--output' || a === '-o') && argv[i + 1] === 'json')
  try {
    await program.parseAsync(argv)
    return Number(process.exitCode ?? 0)
  } catch (e) {
    const { code, message, exit } = describe(e)
    if (exit === exitCodes.ok) return exit
    if (json) io.stdout(JSON.stringify({ error: message, code }))
    else if (!(e instanceof CommanderError)) io.stderr(`${chalk.red('error')} ${message}`)
    return exit
  }
}

function describe(e: unknown): { code: string; message: string; exit: number } {
  if (e instanceof CommanderError) {
    const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help'
    return { code: 'USAGE', message: e.message, exit: ok ? exitCodes.ok : exitCodes.usage }
  }
  if (e instanceof UnreachableError) {
    return { code: 'UNREACHABLE', message: `${e.message}\nIs the daemon running? Start it with \`parx serve\`, or pass --api-url.`, exit: exitCodes.unreachable }
  }
  if (e instanceof ApiError) return { code: e.code, message: e.message, exit: e.status === 401 || e.status === 403 ? exitCodes.auth : exitCodes.rejected }
  if (e instanceof NoOperatorTokenError) return { code: 'UNAUTHORIZED', message: e.message, exit: exitCodes.auth }
  if (e instanceof UsageError) return { code: e.code, message: e.details ? `${e.message}\n${e.details}` : e.message, exit: exitCodes.usage }
  if (e instanceof BaseError) return { code: e.code, message: e.details ? `${e.message}\n${e.details}` : e.message, exit: exitCodes.failure }
  if ((e as { name?: string })?.name === 'ExitPromptError') return { code: 'CANCELLED', message: 'cancelled', exit: exitCodes.cancelled }
  return { code: 'INTERNAL', message: (e as Error)?.stack ?? String(e), exit: exitCodes.failure }
}
