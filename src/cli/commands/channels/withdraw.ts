import { Command } from 'commander'
import type { ChannelWithdraw } from '../../../sdk/platform/channels.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { historyAgent } from '../history-args.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, spinning } from '../platform-shared.js'

/**
 * Takes a channel's deposit back without the seller (POST /api/agents/:id/channels/:channelId/withdraw):
 * the first call starts the contract's withdrawal of what the seller has not claimed, and the channel
 * signs no voucher from then on; a call after the channel's delay finalizes it. Before the delay
 * the platform answers CHANNEL_WITHDRAW_PENDING with the time it can be finalized.
 */
export async function run(
  opts: { channel: string; agent?: string },
  deps: PlatformDeps,
): Promise<CommandResult<ChannelWithdraw>> {
  const channelId = (opts.channel ?? '').trim().toLowerCase()
  if (!/^0x[0-9a-f]{64}$/.test(channelId))
    throw usageError(
      `<channel> '${opts.channel}' is not a channel id (0x and 64 hex digits, as parx channels list prints)`,
    )
  const id = await historyAgent(opts, deps)
  return ok(
    await spinning(deps, 'withdrawing on chain', () => deps.platform.withdrawChannel({ params: { id, channelId } })),
  )
}

export const human = (d: ChannelWithdraw) =>
  d.state === 'initiated'
    ? [
        `Started the withdrawal of ${d.amount} ${d.token} from channel ` +
          `${d.channel.id} (transaction ${d.transaction}); run parx channels ` +
          `withdraw ${d.channel.id} again from ${d.finalizableAt} to finalize it.`,
      ]
    : [
        `Withdrew ${d.withdrawn} ${d.token} from channel ${d.channel.id} ` +
          `(transaction ${d.transaction}); unspent now ${d.channel.unspent} ${d.token}.`,
      ]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('withdraw')
    .description(
      "take a channel's deposit back without the seller: start the " +
        "on-chain withdrawal, then finalize it after the channel's delay",
    )
    .argument('<channel>', 'channel id, as parx channels list prints it')
    .option('--agent <id>', 'agent id (a user key acts on any of its agents; default: the logged-in agent)')
  return platformAction(cmd, ctx, run, human)
}
