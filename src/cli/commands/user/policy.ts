import { Command } from 'commander'
import type { SetDefaultPolicyBody, UserPolicy } from '../../../sdk/platform/policy.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import { usdFlag } from '../budget-flags.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { addRuleFlags, type RuleFlags, ruleBody, ruleLines } from '../policy-flags.js'

export type UserPolicyOptions = RuleFlags & { default?: boolean; perPayment?: string; daily?: string }

/**
 * The user's payee and network rules, which apply to every one of its agents at once, and its
 * default policy for agents created later. With rule flags, sets the user's rules; with
 * `--default`, sets the default instead (rules plus `--per-payment`/`--daily`), copied into each
 * new agent at its creation (agents that exist keep theirs).
 */
export async function run(opts: UserPolicyOptions, deps: PlatformDeps): Promise<CommandResult<UserPolicy>> {
  needUser(deps, 'user policy')
  const rules = await ruleBody(opts)
  if (!opts.default) {
    if (opts.perPayment !== undefined || opts.daily !== undefined)
      throw usageError("--per-payment and --daily go with --default (an existing agent's limits: parx agent limits)")
    return ok(rules ? await deps.platform.setUserPolicy({ body: rules }) : await deps.platform.getUserPolicy({}))
  }
  const body: SetDefaultPolicyBody = { ...rules }
  if (opts.perPayment !== undefined) body.perPaymentUsd = usdFlag(opts.perPayment, '--per-payment')
  if (opts.daily !== undefined) body.dailyUsd = usdFlag(opts.daily, '--daily')
  if (Object.keys(body).length === 0) return ok(await deps.platform.getUserPolicy({}))
  return ok(await deps.platform.setDefaultPolicy({ body }))
}

export function human(p: UserPolicy, ctx: CliContext): string[] {
  const own = ruleLines(p.rules, ctx)
  const d = p.default
  return [
    ...(own.length ? own : ['No rules for all agents.']),
    label(ctx, 'new agents') +
      ([d.perPaymentUsd ? `${d.perPaymentUsd} USD per payment` : null, d.dailyUsd ? `${d.dailyUsd} USD a day` : null]
        .filter(Boolean)
        .join(', ') || 'no default limits'),
    ...ruleLines(d.rules, ctx, 'new agents '),
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('policy')
    .description("show the user's rules for all its agents and its default for new agents; with flags, set them")
    .option('--default', "set the default policy copied into agents created afterwards, not the user's rules")
    .option('--per-payment <usd>', "with --default: new agents' per-payment limit, or none")
    .option('--daily <usd>', "with --default: new agents' daily limit, or none")
  return platformAction(addRuleFlags(cmd), ctx, run, human)
}
