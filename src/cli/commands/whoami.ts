import { Command } from 'commander'
import type { Agent } from '../../sdk/platform/agents.js'
import { type CliContext, label } from '../context.js'
import { type CommandResult, needAgent, ok, type PlatformDeps, platformAction } from './platform-shared.js'

/** The agent the agent key belongs to (GET /api/agents/me): id, network, wallet, tokens, limits. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<Agent>> {
  needAgent(deps, 'whoami')
  return ok(await deps.platform.whoamiAgent({}))
}

export function human(a: Agent, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'agent')}${a.name}  ${ctx.color.dim(a.id)}`,
    `${label(ctx, 'network')}${a.network} (chain ${a.chainId}, ` +
      `${a.sendMethod === 'userOperation' ? 'gasless user operations' : 'direct transfers'})`,
    `${label(ctx, 'wallet')}${a.wallet}`,
    `${label(ctx, 'tokens')}${a.tokens.map((t) => t.symbol).join(', ')}`,
    `${label(ctx, 'limits')}${limitsLine(a.limits)}`,
    ...(a.frozen
      ? [
          `${label(ctx, 'frozen')}since ${a.frozenAt}: pays, sends, ` +
            `swaps and channel deposits are refused (AGENT_FROZEN)`,
        ]
      : []),
  ]
}

export function limitsLine(l: Agent['limits']): string {
  const parts = [
    l.perPaymentUsd ? `${l.perPaymentUsd} USD per payment` : null,
    l.dailyUsd ? `${l.dailyUsd} USD a day (${l.remainingTodayUsd} left)` : null,
    l.allowedHosts ? `hosts ${l.allowedHosts.join(', ')}` : null,
  ].filter(Boolean)
  return parts.length ? parts.join('; ') : 'none'
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('whoami').description('show the agent you are logged in as')
  return platformAction(cmd, ctx, run, human)
}
