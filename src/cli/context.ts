import { resolveApiUrl } from './api-url.js'
import { colorEnabled, type Palette, palette } from './color.js'
import { type Spinner, type SpinnerStream, startSpinner } from './spinner.js'

/** csv: only the commands that print a table (CSV_COMMANDS in program.ts); the others refuse it before running. */
export type OutputFormat = 'text' | 'json' | 'csv'

/** The process the CLI runs in: streams, environment and what is a terminal. Tests pass their own. */
export type CliIo = {
  env: NodeJS.ProcessEnv
  /** One line of data (stdout). */
  stdout: (line: string) => void
  /** One line of messages: progress, warnings, errors in text mode (stderr). */
  stderr: (line: string) => void
  /** Which streams are terminals; all false when omitted (tests, pipes). */
  tty?: { stdin: boolean; stdout: boolean; stderr: boolean }
  /** The raw stderr stream, for the spinner; omitted in tests. */
  stderrStream?: SpinnerStream
}

/** What every command's `run` gets besides its options: where to talk and how to print. */
export type CliContext = CliIo & {
  /** The daemon's URL (resolved on first use: --api-url, PARX_API_URL, the runtime file, the default). */
  readonly apiUrl: string
  output: OutputFormat
  /** Colours for stdout lines (no-ops off a terminal, with NO_COLOR or --no-color). */
  color: Palette
  /** Colours for stderr lines. */
  errColor: Palette
  /** False with NO_COLOR or --no-color (prompts follow it too). */
  colorAllowed: boolean
  /** True when a person can answer a prompt: stdin and stderr are terminals and the output is text. */
  interactive: boolean
  /** A spinner on stderr while waiting (drawn only on a terminal with a width, in text mode). */
  spinner(text: string): Spinner
}

export type GlobalOptions = { output: OutputFormat; apiUrl?: string; color?: boolean }

export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (line) => void process.stdout.write(`${line}\n`),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    tty: { stdin: !!process.stdin.isTTY, stdout: !!process.stdout.isTTY, stderr: !!process.stderr.isTTY },
    stderrStream: process.stderr,
  }
}

export function createContext(io: CliIo, g: GlobalOptions): CliContext {
  const tty = io.tty ?? { stdin: false, stdout: false, stderr: false }
  const out = colorEnabled({ env: io.env, isTTY: tty.stdout, flag: g.color })
  const err = colorEnabled({ env: io.env, isTTY: tty.stderr, flag: g.color })
  let apiUrl: string | undefined
  const errColor = palette(err)
  return {
    ...io,
    get apiUrl() {
      return (apiUrl ??= resolveApiUrl(g.apiUrl, io.env).url)
    },
    output: g.output,
    color: palette(out),
    errColor,
    colorAllowed: colorEnabled({ env: io.env, isTTY: true, flag: g.color }),
    interactive: g.output === 'text' && tty.stdin && tty.stderr,
    spinner: (text) =>
      startSpinner(text, {
        stream: io.stderrStream ?? { isTTY: false, write: (s: string) => io.stderr(s.replace(/\n$/, '')) },
        enabled: g.output === 'text' && tty.stderr,
        paint: errColor,
      }),
  }
}

/** Prints a result: the JSON document in json mode, the human lines otherwise. */
export function emit(ctx: CliContext, result: unknown, human: () => string[]): void {
  if (ctx.output === 'json') ctx.stdout(JSON.stringify(result))
  else for (const line of human()) ctx.stdout(line)
}

/** Where values start in `label  value` lines: the longest fixed label ('user operation', 14) and two spaces. */
export const LABEL_WIDTH = 16

/** A dim, padded label for `label  value` lines; a longer one (a network or check name) still gets two spaces. */
export const label = (ctx: Pick<CliContext, 'color'>, s: string) =>
  ctx.color.dim(s.padEnd(Math.max(LABEL_WIDTH, s.length + 2)))
