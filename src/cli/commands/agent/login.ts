import { Command } from 'commander'
import type { Agent } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { type LoginResult, storeKey } from '../login-shared.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'

export type AgentLoginOptions = { agentKey?: string; agentId?: string }

/**
 * Logs in as an agent: the key is checked with GET /api/agents/me, then the key and the agent's id
 * go into the config file (0600). An agent key acts for one agent, so --agent-id must be that one.
 */
export async function run(opts: AgentLoginOptions, deps: PlatformDeps): Promise<CommandResult<LoginResult<Agent>>> {
  const wanted = opts.agentId === undefined ? undefined : uuidArg(opts.agentId, '--agent-id')
  return ok(
    await storeKey(deps.ctx, {
      field: 'agentKey',
      flag: '--agent-key',
      given: opts.agentKey,
      message: 'Agent API key',
      check: async (agentKey) => {
        const me = await deps.connect({ agentKey }).whoamiAgent({})
        if (wanted && wanted !== me.id.toLowerCase())
          throw usageError(`--agent-id ${wanted} is not the agent of this key (${me.id}); leave it out`)
        return me
      },
      extra: (me) => ({ agentId: me.id }),
    }),
  )
}

export const human = (r: LoginResult<Agent>) => [
  `Logged in as agent ${r.whoami.name} (${r.whoami.id}, ` +
    `${r.whoami.network}); stored the agent key ${r.key} in ${r.path}.`,
]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('login')
    .description(
      'log in as an agent (checks the agent API key with the platform, ' +
        'then stores it and the agent id; asked hidden on a terminal)',
    )
    .option('--agent-key <key>', 'agent API key (default: ask on a terminal)')
    .option('--agent-id <uuid>', "the agent (checked: it must be the key's own)")
  return platformAction(cmd, ctx, run, human)
}
