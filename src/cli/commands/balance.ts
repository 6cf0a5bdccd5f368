import { Command } from 'commander'
import type { Balance } from '../../sdk/platform/wallet.js'
import { type CliContext, label } from '../context.js'
import { agentIdOf, type CommandResult, needAgent, ok, type PlatformDeps, platformAction } from './platform-shared.js'

/** The agent wallet's token balances (TOKEN_A and TOKEN_B on Base) and its native coin. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<Balance>> {
  needAgent(deps, 'balance')
  const id = await agentIdOf(deps)
  return ok(await deps.platform.balance({ params: { id } }))
}

export function human(b: Balance, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'wallet')}${b.wallet} on ${b.network}`,
    ...b.tokens.map((t) => `${label(ctx, t.symbol)}${t.amount}`),
    `${label(ctx, b.native.symbol)}${b.native.amount}`,
  ]
}

export function define(ctx: () => CliContext): Command {
  return platformAction(new Command('balance').description("the agent wallet's token balances"), ctx, run, human)
}
