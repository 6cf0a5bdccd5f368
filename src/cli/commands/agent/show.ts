import { Command } from 'commander'
import type { Agent } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'
import { human as whoami } from '../whoami.js'

export type ShowAgentOptions = { id?: string }

/** One agent, by id or the default one (PARX_AGENT_ID or the stored agent id); its user's key or its own. */
export async function run(opts: ShowAgentOptions, deps: PlatformDeps): Promise<CommandResult<Agent>> {
  const id = agentArg(opts.id, deps)
  return ok(await deps.platform.showAgent({ params: { id } }))
}

/** An agent id argument, or the default agent; a usage error naming both ways when neither is there. */
export function agentArg(given: string | undefined, deps: Pick<PlatformDeps, 'session'>, flag = '<id>'): string {
  if (given !== undefined) return uuidArg(given, flag)
  if (deps.session.agentId) return deps.session.agentId
  throw usageError(
    `which agent? pass ${flag}, set PARX_AGENT_ID, or log in with \`parx agent login\` (see \`parx agent list\`)`,
  )
}

export const human = whoami

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('show')
    .description('show one agent (default: the logged-in agent)')
    .argument('[id]', 'agent id')
  return platformAction(cmd, ctx, run, human)
}
