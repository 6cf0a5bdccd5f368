import { Command } from 'commander'
import type { User } from '../../../sdk/platform/users.js'
import { type CliContext, label } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

/** The user the user key belongs to. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<User>> {
  needUser(deps, 'user whoami')
  return ok(await deps.platform.whoamiUser({}))
}

export function human(u: User, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'user')}${u.name ?? '(no name)'}  ${ctx.color.dim(u.id)}`,
    `${label(ctx, 'wallet')}${u.wallet ?? '(none)'}`,
    `${label(ctx, 'agents')}${u.agents}`,
    `${label(ctx, 'endpoints')}${u.endpoints}`,
  ]
}

export function define(ctx: () => CliContext): Command {
  return platformAction(new Command('whoami').description('show the user you are logged in as'), ctx, run, human)
}
