import { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { configFile } from './shared.js'

export async function run(_opts: object, ctx: CliContext) {
  const result = { path: (await configFile(ctx)).path }
  emit(ctx, result, () => [result.path])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('path')
    .description('print where the config file is')
    .action(async () => void (await run({}, ctx())))
}
