import { Command } from 'commander'
import { packageVersion } from '../../config/package-root.js'
import type { CliContext } from '../context.js'

/** Serves the agent's commands as MCP tools over stdio until the client closes it. */
export async function run(_opts: object, ctx: CliContext, apiUrl?: string): Promise<number> {
  const { serveMcp } = await import('../mcp/server.js')
  await serveMcp(ctx, { version: packageVersion(), apiUrl })
  return 0
}

export function define(ctx: () => CliContext): Command {
  const cmd: Command = new Command('mcp')
    .description(
      'serve the agent commands (whoami, balance, pay, send, ' +
        'swap, manifest, discover, history) as MCP tools over stdio',
    )
    .action(async () => {
      process.exitCode = await run({}, ctx(), cmd.parent?.opts<{ apiUrl?: string }>().apiUrl)
    })
  return cmd
}
