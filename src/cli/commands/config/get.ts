import { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { getPlatform, PLATFORM_PREFIX } from './platform.js'
import { configFile, SECTION } from './shared.js'

/**
 * Prints one daemon setting, or all of them, as stored (daemon secrets included: it is yours); platform keys masked.
 */
export async function run(key: string | undefined, ctx: CliContext) {
  const value =
    key === 'platform' || key?.startsWith(PLATFORM_PREFIX)
      ? await getPlatform(key, ctx)
      : ((await configFile(ctx)).get(key ? `${SECTION}.${key}` : SECTION) ?? null)
  const result = { key: key ?? null, value }
  emit(ctx, result, () => [typeof value === 'string' ? value : JSON.stringify(value, null, 2)])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('get')
    .description('print a daemon setting from the config file (all of them without a key)')
    .argument('[key]', 'dotted key, e.g. port, auth.enforce, rpc.base-sepolia, platform (keys masked)')
    .action(async (key?: string) => void (await run(key, ctx())))
}
