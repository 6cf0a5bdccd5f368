import { Command } from 'commander'
import type { AgentPolicy } from '../../../sdk/platform/policy.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { addRuleFlags, type RuleFlags, ruleBody, ruleLines } from '../policy-flags.js'
import { agentArg } from './show.js'

export type PolicyOptions = { id?: string } & RuleFlags

/**
 * An agent's payee and network rules and its user's (which apply too); with rule flags, sets the
 * agent's first (user key). `--allow-host` is the same list as `agent limits --allowed-hosts`.
 */
export async function run(opts: PolicyOptions, deps: PlatformDeps): Promise<CommandResult<AgentPolicy>> {
  const params = { id: agentArg(opts.id, deps) }
  const body = await ruleBody(opts)
  if (!body) return ok(await deps.platform.getAgentPolicy({ params }))
  needUser(deps, 'agent policy --allow-…/--deny-…/--clear')
  return ok(await deps.platform.setAgentPolicy({ params, body }))
}

export function human(p: AgentPolicy, ctx: CliContext): string[] {
  const own = ruleLines(p.rules, ctx)
  const user = ruleLines(p.userRules, ctx, 'user ')
  return [
    ...(own.length ? own : ['No rules of its own: any host, payee, network and token (within its limits).']),
    ...user,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('policy')
    .description(
      "show an agent's payee and network rules (and its user's); with " +
        "flags, set the agent's (deny wins; a set allow-list must match)",
    )
    .argument('[id]', 'agent id (default: PARX_AGENT_ID or the stored agent)')
  return platformAction(addRuleFlags(cmd), ctx, run, human)
}
