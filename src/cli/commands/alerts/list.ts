import { Command } from 'commander'
import type { AlertRule, AlertRuleList } from '../../../sdk/platform/alerts.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

/** The user's alert rules, oldest first. User key only. */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<AlertRuleList>> {
  needUser(deps, 'alerts')
  return ok(await deps.platform.listAlertRules({}))
}

/** What a rule watches, in the words of its `parx alerts add` flags. */
export function ruleLine(r: AlertRule): string {
  const scope = r.agentId ? `agent ${r.agentId}` : 'all agents'
  const what = (() => {
    switch (r.kind) {
      case 'budget':
        return `budget: ${r.of === 'user' ? "the user's" : "the agent's"} ${r.window} window at ${r.percent}%`
      case 'payment_above':
        return `payment above ${r.usd} USD`
      case 'new_payee':
        return `new payee host (${r.of === 'user' ? 'new to all your agents' : 'new to the agent'})`
      case 'refusals':
        return `${r.count} refusals within ${r.withinMinutes} min`
      case 'spend_rate':
        return `spend over the last ${r.period} above ${r.factor}x its 7-day average`
    }
  })()
  return `${r.id}  ${what}  (${scope})`
}

export function human(r: AlertRuleList): string[] {
  if (!r.rules.length) return ['No alert rules. Add one with: parx alerts add --budget 80 --window month']
  return [...r.rules.map(ruleLine), 'Fired alerts: parx alerts history']
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('list').description('your alert rules')
  return platformAction(cmd, ctx, run, human)
}
