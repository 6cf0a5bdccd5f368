import { Command } from 'commander'
import type { Agent } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { human as showAgent } from './show.js'

export type CreateAgentOptions = { name: string; network: string }

/** Creates an agent with a new wallet on a network (the platform holds its key). */
export async function run(opts: CreateAgentOptions, deps: PlatformDeps): Promise<CommandResult<Agent>> {
  const name = (opts.name ?? '').trim()
  if (!name || name.length > 64) throw usageError('--name must be 1 to 64 characters')
  const network = (opts.network ?? '').trim().toLowerCase()
  if (!/^[a-z0-9-]+$/.test(network))
    throw usageError(`--network '${opts.network}' is not a network name such as local-base`)
  needUser(deps, 'agent create')
  return ok(await deps.platform.createAgent({ body: { name, network } }))
}

export function human(a: Agent, ctx: CliContext): string[] {
  return [...showAgent(a, ctx), `Create its key with \`parx agent key create --agent ${a.id}\`.`]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('create')
    .description('create an agent with a new wallet')
    .requiredOption('--name <name>', 'a name for the agent')
    .requiredOption('--network <network>', 'its network, e.g. local-base, local-radius, base-sepolia')
  return platformAction(cmd, ctx, run, human)
}
