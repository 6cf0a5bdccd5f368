import { Command } from 'commander'
import type { Agent } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { agentArg } from './show.js'

export type FreezeOptions = { id?: string; all?: boolean }
export type FreezeResult = { agents: Agent[] }

/**
 * Freezes one agent, or with `--all` every agent of the user in one step: from the answer on, on
 * every replica, its pays, sends, swaps and channel deposits are refused with AGENT_FROZEN.
 * Takes the user key only (an agent cannot freeze or unfreeze itself).
 */
export async function run(opts: FreezeOptions, deps: PlatformDeps): Promise<CommandResult<FreezeResult>> {
  return ok(await setFrozen(opts, deps, true))
}

/** Shared with `parx agent unfreeze`: one agent by id (or the default one), or `--all`. */
export async function setFrozen(opts: FreezeOptions, deps: PlatformDeps, frozen: boolean): Promise<FreezeResult> {
  const verb = frozen ? 'freeze' : 'unfreeze'
  if (opts.all && opts.id !== undefined) throw usageError(`pass an agent id or --all, not both`)
  needUser(deps, `agent ${verb}`)
  if (opts.all) return frozen ? deps.platform.freezeAllAgents({}) : deps.platform.unfreezeAllAgents({})
  const params = { id: agentArg(opts.id, deps) }
  return { agents: [await (frozen ? deps.platform.freezeAgent({ params }) : deps.platform.unfreezeAgent({ params }))] }
}

export function human(r: FreezeResult): string[] {
  if (!r.agents.length) return ['No agents.']
  return r.agents.map((a) =>
    a.frozen
      ? `Agent ${a.name} (${a.id}) is frozen since ${a.frozenAt}: new pays, sends, ` +
        `swaps and channel deposits are refused; payments signed before still complete.`
      : `Agent ${a.name} (${a.id}) may spend again (within its limits).`,
  )
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('freeze')
    .description(
      "stop an agent's spending at once (every replica): pays, sends, swaps and channel deposits answer AGENT_FROZEN",
    )
    .argument('[id]', 'agent id (default: PARX_AGENT_ID or the stored agent)')
    .option('--all', 'freeze every agent of the user')
  return platformAction(cmd, ctx, run, human)
}
