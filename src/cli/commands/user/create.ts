import { Command } from 'commander'
import type { CreatedUser } from '../../../sdk/platform/users.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import { type OperatorOptions, operatorToken } from '../keys/shared.js'
import { addressArg, type CommandResult, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

export type CreateUserOptions = OperatorOptions & { name?: string; wallet?: string }

/** Creates a user on the local profile with the operator token (no browser) and prints its user key once. */
export async function run(opts: CreateUserOptions, deps: PlatformDeps): Promise<CommandResult<CreatedUser>> {
  const wallet = opts.wallet === undefined ? undefined : addressArg(opts.wallet, '--wallet')
  if (opts.name !== undefined && opts.name.trim() === '') throw usageError('--name must not be empty')
  return ok(
    await deps.platform.createUser({
      body: { ...(opts.name ? { name: opts.name.trim() } : {}), ...(wallet ? { wallet } : {}) },
    }),
  )
}

export function human(c: CreatedUser, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'user key')}${c.userKey}`,
    `${label(ctx, 'user')}${c.user.name ?? '(no name)'}  ${ctx.color.dim(c.user.id)}`,
    'Store the key now: it is not shown again. Log in with `parx auth user login` (it asks for the key hidden).',
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('create')
    .description('create a user on the local profile (operator token) and print its user key')
    .option('--name <name>', 'a name for the user')
    .option('--wallet <address>', 'the wallet the user signs in with on the dashboard')
    .option('--operator-token <token>', 'operator token (default: PARX_OPERATOR_TOKEN, or the local data dir)')
    .option('--data-dir <dir>', 'data dir of a local daemon, to read its operator token')
  return platformAction(cmd, ctx, run, human, { operatorToken: (o, c) => operatorToken(c, o) })
}
