import { Command } from 'commander'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'

export type RemoveOptions = { id?: string }
export type Removed = { id: string; deleted: true }

/** Removes one alert rule; the alerts it fired stay in the history. User key only. */
export async function run(opts: RemoveOptions, deps: PlatformDeps): Promise<CommandResult<Removed>> {
  const ruleId = uuidArg(opts.id ?? '', 'the rule id')
  needUser(deps, 'alerts remove')
  return ok(await deps.platform.deleteAlertRule({ params: { ruleId } }))
}

export const human = (r: Removed): string[] => [
  `Removed alert rule ${r.id} (the alerts it fired stay in parx alerts history).`,
]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('remove').description('remove an alert rule').argument('<id>', 'the rule id (parx alerts)')
  return platformAction(cmd, ctx, run, human)
}
