import { Command } from 'commander'
import { emit, type CliContext } from '../../context.js'
import { storeKey, type LoginResult } from '../login-shared.js'

export type UserLoginOptions = { userKey?: string }

/** Logs in as a user: the user API key goes into the config file (0600); asked hidden on a terminal. */
export async function run(opts: UserLoginOptions, ctx: CliContext): Promise<LoginResult> {
  const result = await storeKey(ctx, { field: 'userKey', flag: '--user-key', given: opts.userKey, message: 'User API key' })
  emit(ctx, result, () => [`Stored the user key ${result.key} in ${result.path}.`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('login')
    .description('log in as a user (stores the user API key; asked hidden on a terminal)')
    .option('--user-key <key>', 'user API key (default: ask on a terminal)')
    .action(async (opts: UserLoginOptions) => void (await run(opts, ctx())))
}
