import { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { operatorToken } from './shared.js'

/** Prints the operator token of a local daemon, for scripts (no browser needed). */
export function run(opts: { dataDir?: string }, ctx: CliContext) {
  const result = { operatorToken: operatorToken(ctx, opts) }
  emit(ctx, result, () => [result.operatorToken])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('operator-token')
    .description("print the local daemon's operator token (from its data dir)")
    .option('--data-dir <dir>', 'data dir of the local daemon')
    .action((opts: { dataDir?: string }) => void run(opts, ctx()))
}
