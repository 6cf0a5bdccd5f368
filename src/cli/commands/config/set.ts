import { Command } from 'commander'
import { setPath } from '../../../config/env.js'
import { type CliContext, emit } from '../../context.js'
import { PLATFORM_PREFIX, setPlatform } from './platform.js'
import { configFile, parseValue, SECTION, validateSection } from './shared.js'

/** Sets one daemon setting in the config file after checking the whole section still validates. */
export async function run(key: string, raw: string, ctx: CliContext) {
  if (key.startsWith(PLATFORM_PREFIX)) {
    const { value, path } = await setPlatform(key, raw, ctx)
    const result = { key, value, path }
    emit(ctx, result, () => [`${key} = ${JSON.stringify(value)} (${path})`])
    return result
  }
  const file = await configFile(ctx)
  const section = structuredClone((file.get(SECTION) as Record<string, unknown> | undefined) ?? {})
  const value = parseValue(raw)
  setPath(section, key, value)
  await validateSection(section, key)
  file.set(SECTION, section)
  const result = { key, value, path: file.path }
  emit(ctx, result, () => [`${key} = ${JSON.stringify(value)} (${file.path})`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('set')
    .description('set a daemon setting, or platform.agentsUrl / platform.agentId, in the config file (validated first)')
    .argument('<key>', 'dotted key, e.g. port, auth.enforce, rpc.base-sepolia, platform.agentsUrl')
    .argument('<value>', 'JSON value or plain string')
    .action(async (key: string, value: string) => void (await run(key, value, ctx())))
}
