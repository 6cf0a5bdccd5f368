import { Command } from 'commander'
import type { Agent } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

/** The user's agents. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<{ agents: Agent[] }>> {
  needUser(deps, 'agent list')
  return ok(await deps.platform.listAgents({}))
}

export function human(d: { agents: Agent[] }, ctx: CliContext): string[] {
  if (!d.agents.length) return ['No agents yet: create one with `parx agent create --name <name> --network <network>`.']
  return d.agents.map(
    (a) =>
      `${a.id}  ${a.name.padEnd(16)} ${a.network.padEnd(14)} ` +
      `${a.wallet}${a.id === ctx.env.PARX_AGENT_ID ? ctx.color.dim('  (PARX_AGENT_ID)') : ''}`,
  )
}

export function define(ctx: () => CliContext): Command {
  return platformAction(new Command('list').description("list the user's agents"), ctx, run, human)
}
