import { Command } from 'commander'
import type { UserLimits } from '../../../sdk/platform/limits.js'
import { type CliContext, label } from '../../context.js'
import { type BudgetOptions, budgetBody, budgetOptions, windowLines } from '../budget-flags.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

/**
 * The user's budgets across all its agents and what each window has left; with flags, sets them first. `none` clears
 * one.
 */
export async function run(opts: BudgetOptions, deps: PlatformDeps): Promise<CommandResult<UserLimits>> {
  needUser(deps, 'user limits')
  const body = budgetBody(opts)
  if (Object.keys(body).length === 0) return ok(await deps.platform.getUserLimits({}))
  return ok(await deps.platform.setUserLimits({ body }))
}

export function human(l: UserLimits, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'per payment')}${l.perPaymentUsd ? `${l.perPaymentUsd} USD` : 'no limit'}`,
    ...windowLines(l.windows, ctx),
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('limits').description(
    'show your budgets across all your agents and what each window has left; with flags, set them (none clears one)',
  )
  budgetOptions(cmd, ' by all your agents together')
  return platformAction(cmd, ctx, run, human)
}
