import { Command } from 'commander'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'

/** Stops serving an endpoint. */
export async function run(
  opts: { id: string },
  deps: PlatformDeps,
): Promise<CommandResult<{ id: string; deleted: true }>> {
  const id = uuidArg(opts.id ?? '', '<id>')
  needUser(deps, 'endpoint delete')
  return ok(await deps.platform.deleteEndpoint({ params: { id } }))
}

export const human = (d: { id: string }) => [`Deleted endpoint ${d.id}.`]

export function define(ctx: () => CliContext): Command {
  return platformAction(
    new Command('delete').description('stop serving an endpoint').argument('<id>', 'endpoint id'),
    ctx,
    run,
    human,
  )
}
