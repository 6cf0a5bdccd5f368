import { Command } from 'commander'
import type { CliContext } from '../../context.js'
import { type CommandResult, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { type FreezeOptions, type FreezeResult, human, setFrozen } from './freeze.js'

/**
 * Lets a frozen agent (or with `--all` every agent of the user) spend again. Where the deployment
 * sets `platform.unfreezeRequiresDashboard`, a user key is FORBIDDEN here: unfreeze from the dashboard.
 */
export async function run(opts: FreezeOptions, deps: PlatformDeps): Promise<CommandResult<FreezeResult>> {
  return ok(await setFrozen(opts, deps, false))
}

export { human }

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('unfreeze')
    .description('let a frozen agent spend again (some deployments take this from the dashboard only)')
    .argument('[id]', 'agent id (default: PARX_AGENT_ID or the stored agent)')
    .option('--all', 'unfreeze every agent of the user')
  return platformAction(cmd, ctx, run, human)
}
