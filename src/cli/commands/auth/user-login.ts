import { Command } from 'commander'
import type { User } from '../../../sdk/platform/users.js'
import type { CliContext } from '../../context.js'
import { type LoginResult, storeKey } from '../login-shared.js'
import { type CommandResult, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

export type UserLoginOptions = { userKey?: string }

/** Logs in as a user: the key is checked with the platform (who is it?) and then stored in the config file (0600). */
export async function run(opts: UserLoginOptions, deps: PlatformDeps): Promise<CommandResult<LoginResult<User>>> {
  return ok(
    await storeKey(deps.ctx, {
      field: 'userKey',
      flag: '--user-key',
      given: opts.userKey,
      message: 'User API key',
      check: (userKey) => deps.connect({ userKey }).whoamiUser({}),
    }),
  )
}

export const human = (r: LoginResult<User>) => [
  `Logged in as user ${r.whoami.name ?? r.whoami.id}; stored the user key ${r.key} in ${r.path}.`,
]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('login')
    .description(
      'log in as a user (checks the user API key with the platform, then stores it; asked hidden on a terminal)',
    )
    .option('--user-key <key>', 'user API key (default: ask on a terminal)')
  return platformAction(cmd, ctx, run, human)
}
