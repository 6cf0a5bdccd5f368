import { Command } from 'commander'
import type { Limits, SetLimitsBody } from '../../../sdk/platform/limits.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import { type BudgetOptions, budgetBody, budgetOptions, usdFlag, windowLines } from '../budget-flags.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { agentArg } from './show.js'

export type LimitsOptions = BudgetOptions & { agent?: string; allowedHosts?: string; approveAbove?: string }

/**
 * An agent's spending limits and, per window, what counts and what is left (its own and its
 * user's); with flags, sets them first (user key). `none` clears one.
 */
export async function run(opts: LimitsOptions, deps: PlatformDeps): Promise<CommandResult<Limits>> {
  const id = agentArg(opts.agent, deps, '--agent')
  const body: SetLimitsBody = budgetBody(opts)
  if (opts.approveAbove !== undefined) body.approveAboveUsd = usdFlag(opts.approveAbove, '--approve-above')
  if (opts.allowedHosts !== undefined) {
    const hosts =
      opts.allowedHosts === 'none'
        ? null
        : opts.allowedHosts
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean)
    if (hosts?.some((h) => !/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(h)))
      throw usageError(
        `--allowed-hosts takes host names such as api.example.com,*.example.com (no scheme, path or port)`,
      )
    body.allowedHosts = hosts
  }
  if (Object.keys(body).length === 0) return ok(await deps.platform.getLimits({ params: { id } }))
  needUser(deps, 'agent limits --per-payment/--hourly/--daily/--weekly/--monthly/--allowed-hosts/--approve-above')
  return ok(await deps.platform.setLimits({ params: { id }, body }))
}

export function human(l: Limits, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'per payment')}${l.perPaymentUsd ? `${l.perPaymentUsd} USD` : 'no limit'}`,
    ...windowLines(l.windows, ctx),
    `${label(ctx, 'hosts')}${l.allowedHosts ? l.allowedHosts.join(', ') : 'any'}`,
    `${label(ctx, 'user per payment')}${l.user.perPaymentUsd ? `${l.user.perPaymentUsd} USD` : 'no limit'}`,
    ...windowLines(l.user.windows, ctx, 'user '),
    label(ctx, 'may still spend') +
      (l.mayStillSpendUsd === null ? 'no limit' : `${l.mayStillSpendUsd} USD in one spend`),
    label(ctx, 'approval') +
      (l.approveAboveUsd ? `above ${l.approveAboveUsd} USD (the owner approves it first)` : 'never asked'),
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('limits')
    .description(
      "show an agent's spending limits and what each window (the agent's " +
        "and its user's) has left; with flags, set them (none clears one)",
    )
    .option('--agent <id>', 'agent id (default: the logged-in agent)')
  budgetOptions(cmd, '')
  cmd.option(
    '--allowed-hosts <hosts>',
    'comma-separated hosts pay may pay (*.example.com matches sub-domains), or none',
  )
  cmd.option('--approve-above <usd>', 'a pay or send above this waits for your approval (parx approvals), or none')
  return platformAction(cmd, ctx, run, human)
}
