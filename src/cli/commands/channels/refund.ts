import { Command } from 'commander'
import type { ChannelRefund } from '../../../sdk/platform/channels.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { historyAgent } from '../history-args.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, spinning } from '../platform-shared.js'

/**
 * Asks the channel's seller to refund its unspent deposit to the agent's wallet (POST
 * /api/agents/:id/channels/:channelId/refund). What came back is read from the chain; a seller
 * that refuses leaves the deposit in the channel (CHANNEL_REFUND_REFUSED says how to withdraw it).
 */
export async function run(
  opts: { channel: string; agent?: string },
  deps: PlatformDeps,
): Promise<CommandResult<ChannelRefund>> {
  const channelId = (opts.channel ?? '').trim().toLowerCase()
  if (!/^0x[0-9a-f]{64}$/.test(channelId))
    throw usageError(
      `<channel> '${opts.channel}' is not a channel id (0x and 64 hex digits, as parx channels list prints)`,
    )
  const id = await historyAgent(opts, deps)
  return ok(
    await spinning(deps, 'asking the seller for the refund', () =>
      deps.platform.refundChannel({ params: { id, channelId } }),
    ),
  )
}

export const human = (d: ChannelRefund) => [
  `Refunded ${d.refunded} ${d.token} from channel ` +
    `${d.channel.id}${d.transaction ? ` (transaction ${d.transaction})` : ''}; ` +
    `unspent now ${d.channel.unspent} ${d.token}.`,
]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('refund')
    .description("ask the seller to refund a channel's unspent deposit to the agent's wallet")
    .argument('<channel>', 'channel id, as parx channels list prints it')
    .option('--agent <id>', 'agent id (a user key acts on any of its agents; default: the logged-in agent)')
  return platformAction(cmd, ctx, run, human)
}
