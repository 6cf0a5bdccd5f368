import { Command } from 'commander'
import type { Channel, ChannelList } from '../../../sdk/platform/channels.js'
import type { CliContext } from '../../context.js'
import { historyAgent } from '../history-args.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, spinning } from '../platform-shared.js'

/**
 * The agent's x402 batch-settlement channels (GET /api/agents/:id/channels): per seller, what was
 * deposited, charged, refunded and withdrawn, what is still unspent (what `parx channels refund` returns),
 * and a withdrawal under way (`parx channels withdraw`).
 */
export async function run(opts: { agent?: string }, deps: PlatformDeps): Promise<CommandResult<ChannelList>> {
  const id = await historyAgent(opts, deps)
  return ok(await spinning(deps, 'reading channels', () => deps.platform.listChannels({ params: { id } })))
}

export function human(d: ChannelList, ctx: CliContext): string[] {
  if (!d.channels.length) return ['No channels.']
  return d.channels.map((c) => line(c, ctx))
}

function line(c: Channel, ctx: CliContext): string {
  const pending = c.pendingDeposit ? ctx.color.yellow(`  pending deposit ${c.pendingDeposit}`) : ''
  const withdrawn = c.withdrawn !== '0' ? `, withdrawn ${c.withdrawn}` : ''
  const withdrawal = c.withdrawal
    ? ctx.color.yellow(`  withdrawing ${c.withdrawal.amount}, finalizable from ${c.withdrawal.finalizableAt}`)
    : ''
  return (
    `${c.id}  ${c.host}  ${c.network}  deposited ${c.deposited} ${c.token}, charged ` +
    `${c.charged}, refunded ${c.refunded}${withdrawn}, unspent ${c.unspent}${pending}${withdrawal}`
  )
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('list')
    .description(
      "the agent's x402 batch-settlement channels: deposited, charged, " +
        'refunded, withdrawn and unspent per seller, and any withdrawal under way',
    )
    .option('--agent <id>', 'agent id (a user key reads any of its agents; default: the logged-in agent)')
  return platformAction(cmd, ctx, run, human)
}
