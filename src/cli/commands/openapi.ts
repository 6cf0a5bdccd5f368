import { Command } from 'commander'
import type { CliContext } from '../context.js'
import { callDaemon } from '../daemon-call.js'
import { CliError } from '../errors.js'

/**
 * The daemon's OpenAPI 3.1 document (GET /api/openapi.json), for a generator or a file: `parx openapi >
 * parx.openapi.json`.
 */
export async function run(_opts: object, ctx: CliContext): Promise<number> {
  const doc = await callDaemon<{ openapi?: unknown }>(ctx, '/api/openapi.json')
  if (typeof doc?.openapi !== 'string')
    throw new CliError('NOT_PARX', `the server at ${ctx.apiUrl} answered /api/openapi.json without an OpenAPI document`)
  // Text output is for people and files (indented); --output json is one line.
  ctx.stdout(ctx.output === 'json' ? JSON.stringify(doc) : JSON.stringify(doc, null, 2))
  return 0
}

export function define(ctx: () => CliContext): Command {
  return new Command('openapi')
    .description("print the daemon's OpenAPI 3.1 document (GET /api/openapi.json; readable at /api/docs)")
    .action(async () => {
      process.exitCode = await run({}, ctx())
    })
}
