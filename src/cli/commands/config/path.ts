import { Command } from 'commander'
import { emit, type CliContext } from '../../context.js'
import { configFile } from './shared.js'

export function run(_opts: object, ctx: CliContext) {
  const result = { path: configFile(ctx).path }
  emit(ctx, result, () => [result.path])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('path').description('print where the config file is').action(() => void run({}, ctx()))
}
