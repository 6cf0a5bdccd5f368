import chalk from 'chalk'

export type OutputFormat = 'text' | 'json'

/** What every command's `run` gets besides its options: where to talk and how to print. */
export type CliContext = {
  apiUrl: string
  output: OutputFormat
  env: NodeJS.ProcessEnv
  stdout: (line: string) => void
  stderr: (line: string) => void
}

export function defaultApiUrl(env: NodeJS.ProcessEnv): string {
  return env.PARX_API_URL || `http://127.0.0.1:${env.PARX_PORT || 8420}`
}

/** Prints a result: the JSON document in json mode, the human lines otherwise. */
export function emit(ctx: CliContext, result: unknown, human: () => string[]): void {
  if (ctx.output === 'json') ctx.stdout(JSON.stringify(result))
  else for (const line of human()) ctx.stdout(line)
}

export const label = (s: string) => chalk.dim(s.padEnd(14))
