import type { Command } from 'commander'
import { xchainPaths } from '../../../sdk/xchain/paths.js'
import type { HeartbeatResponse } from '../../../sdk/xchain/wire.js'
import { type CliContext, emit } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand } from '../keys/shared.js'

/** `parx solver heartbeat`: the cross-chain solver worker's liveness. */
export async function run(opts: OperatorOptions, ctx: CliContext) {
  const hb = await operatorCall<HeartbeatResponse>(ctx, opts, xchainPaths.heartbeat)
  emit(ctx, hb, () => [
    `leading: ${hb.leading ? 'yes' : 'no (another process runs the worker)'}; last ` +
      `pass: ${hb.lastPassAt ? new Date(hb.lastPassAt).toISOString() : 'none yet'}`,
    `paused: deliveries ${hb.paused.deliveries ? 'yes' : 'no'}, claims ` +
      `${hb.paused.claims ? 'yes' : 'no'}; rails: ${hb.rails.join(', ') || 'none'}`,
    `orders: ${
      Object.entries(hb.orders)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    `attestors: ${hb.attestors.map((a) => `#${a.index} ${a.online ? 'online' : 'offline'}`).join(', ')}`,
  ])
  return hb
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('heartbeat')
    .description('the cross-chain solver: leader, last pass, pause switches, orders by stage, attestors')
    .action(async (opts: OperatorOptions) => void (await run(opts, ctx())))
}
