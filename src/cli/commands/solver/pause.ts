import type { Command } from 'commander'
import { xchainPaths } from '../../../sdk/xchain/paths.js'
import type { HeartbeatResponse } from '../../../sdk/xchain/wire.js'
import { type CliContext, emit } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand } from '../keys/shared.js'

type PauseOptions = OperatorOptions & { keepDelivering?: boolean; keepClaiming?: boolean }

/** `parx solver pause`: the cross-chain solver stops delivering and claiming; expired orders are still refunded. */
export async function run(opts: PauseOptions, ctx: CliContext) {
  const body = { deliveries: !opts.keepDelivering, claims: !opts.keepClaiming }
  const result = await operatorCall<{ paused: HeartbeatResponse['paused'] }>(ctx, opts, xchainPaths.pause, {
    method: 'POST',
    body,
  })
  emit(ctx, result, () => [
    `Solver paused: deliveries ${result.paused.deliveries ? 'off' : 'on'}, claims ` +
      `${result.paused.claims ? 'off' : 'on'}. Expired orders are still refunded; \`parx solver resume\` undoes it.`,
  ])
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('pause')
    .description('pause the cross-chain solver (no new deliveries or claims; refunds go on)')
    .option('--keep-delivering', 'pause claims only')
    .option('--keep-claiming', 'pause deliveries only')
    .action(async (opts: PauseOptions) => void (await run(opts, ctx())))
}
