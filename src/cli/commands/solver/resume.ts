import type { Command } from 'commander'
import { xchainPaths } from '../../../sdk/xchain/paths.js'
import type { HeartbeatResponse } from '../../../sdk/xchain/wire.js'
import { type CliContext, emit } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand } from '../keys/shared.js'

/** `parx solver resume`: the cross-chain solver delivers and claims again. */
export async function run(opts: OperatorOptions, ctx: CliContext) {
  const result = await operatorCall<{ paused: HeartbeatResponse['paused'] }>(ctx, opts, xchainPaths.resume, {
    method: 'POST',
    body: {},
  })
  emit(ctx, result, () => ['Solver resumed: it delivers and claims again.'])
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('resume')
    .description('resume the cross-chain solver')
    .action(async (opts: OperatorOptions) => void (await run(opts, ctx())))
}
