import { Command } from 'commander'
import type { Endpoint } from '../../../sdk/platform/endpoints.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

/** The user's seller endpoints. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<{ endpoints: Endpoint[] }>> {
  needUser(deps, 'endpoint list')
  return ok(await deps.platform.listEndpoints({}))
}

export function human(d: { endpoints: Endpoint[] }, ctx: CliContext): string[] {
  if (!d.endpoints.length) return ['No endpoints yet: create one with `parx endpoint create`.']
  return d.endpoints.map(
    (e) =>
      `${e.id}  ${e.price} ${e.token} on ${e.network}  ${e.url} -> ` +
      `${e.upstreamUrl}${e.name ? ctx.color.dim(`  ${e.name}`) : ''}`,
  )
}

export function define(ctx: () => CliContext): Command {
  return platformAction(new Command('list').description("list the user's seller endpoints"), ctx, run, human)
}
