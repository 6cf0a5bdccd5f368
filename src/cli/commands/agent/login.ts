import { Command } from 'commander'
import { emit, type CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { storeKey, type LoginResult } from '../login-shared.js'

export type AgentLoginOptions = { agentKey?: string; agentId?: string }

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Logs in as an agent: the agent API key (and, when given, its UUID) go into the config file (0600). */
export async function run(opts: AgentLoginOptions, ctx: CliContext): Promise<LoginResult> {
  if (opts.agentId !== undefined && !uuid.test(opts.agentId)) throw usageError(`--agent-id '${opts.agentId}' is not a UUID`)
  const result = await storeKey(ctx, {
    field: 'agentKey',
    flag: '--agent-key',
    given: opts.agentKey,
    message: 'Agent API key',
    extra: opts.agentId ? { agentId: opts.agentId } : undefined,
  })
  emit(ctx, result, () => [`Stored the agent key ${result.key} in ${result.path}.`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('login')
    .description('log in as an agent (stores the agent API key; asked hidden on a terminal)')
    .option('--agent-key <key>', 'agent API key (default: ask on a terminal)')
    .option('--agent-id <uuid>', 'the default agent (PARX_AGENT_ID overrides it)')
    .action(async (opts: AgentLoginOptions) => void (await run(opts, ctx())))
}
