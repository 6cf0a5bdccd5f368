import { Command } from 'commander'
import { type CliContext, emit } from '../context.js'
import { type Credentials, credentialEnv, removeCredentials } from '../credentials.js'

export type LogoutOptions = { user?: boolean; agent?: boolean }
export type LogoutResult = { removed: (keyof Credentials)[]; path: string; stillFromEnv: string[] }

/** Removes stored keys: both by default, or only the user's or the agent's. */
export async function run(opts: LogoutOptions, ctx: CliContext): Promise<LogoutResult> {
  const both = !opts.user && !opts.agent
  const fields: (keyof Credentials)[] = [
    ...(both || opts.agent ? (['agentKey', 'agentId'] as const) : []),
    ...(both || opts.user ? (['userKey'] as const) : []),
  ]
  const { removed, path } = await removeCredentials(ctx, fields)
  // A key in the environment still applies: say so rather than pretend it is gone.
  const stillFromEnv = fields.map((f) => credentialEnv[f]).filter((name) => !!ctx.env[name])
  const result = { removed, path, stillFromEnv }
  emit(ctx, result, () => [
    removed.length ? `Removed ${removed.join(', ')} from ${path}.` : `No stored keys to remove in ${path}.`,
    ...stillFromEnv.map((name) => `${name} is set in the environment and still applies.`),
  ])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('logout')
    .description('remove the stored keys (agent and user; --agent or --user for one)')
    .option('--agent', 'only the agent key and agent id')
    .option('--user', 'only the user key')
    .action(async (opts: LogoutOptions) => void (await run(opts, ctx())))
}
