import { Command } from 'commander'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { agentArg } from './show.js'

export type CreateAgentKeyOptions = { agent?: string; label?: string }
type AgentKeyInfo = import('../../../sdk/platform/agents.js').AgentKeyInfo
export type CreatedAgentKey = { key: AgentKeyInfo; agentKey: string }

/** Creates an agent key (user key needed); the key is printed this once. */
export async function run(opts: CreateAgentKeyOptions, deps: PlatformDeps): Promise<CommandResult<CreatedAgentKey>> {
  const id = agentArg(opts.agent, deps, '--agent')
  if (opts.label !== undefined && (opts.label.trim() === '' || opts.label.length > 64))
    throw usageError('--label must be 1 to 64 characters')
  needUser(deps, 'agent key create')
  return ok(
    await deps.platform.createAgentKey({ params: { id }, body: opts.label ? { label: opts.label.trim() } : {} }),
  )
}

export function human(c: CreatedAgentKey, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'agent key')}${c.agentKey}`,
    `${label(ctx, 'key id')}${c.key.id}`,
    'Store the key now: it is not shown again. Log in with `parx agent login` (it asks for the key hidden).',
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('create')
    .description('create an agent key (printed once)')
    .option('--agent <id>', 'agent id (default: PARX_AGENT_ID or the stored agent)')
    .option('--label <label>', 'a label to tell keys apart')
  return platformAction(cmd, ctx, run, human)
}
