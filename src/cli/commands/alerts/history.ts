import { Command } from 'commander'
import type { AlertHistory } from '../../../sdk/platform/alerts.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'

export type HistoryOptions = { agent?: string; limit?: string }

/** The alerts your rules fired, newest first: when, which rule, which agent, the figures. User key only. */
export async function run(opts: HistoryOptions, deps: PlatformDeps): Promise<CommandResult<AlertHistory>> {
  const query: { agentId?: string; limit?: number } = {}
  if (opts.agent !== undefined) query.agentId = uuidArg(opts.agent, '--agent')
  if (opts.limit !== undefined) {
    if (!/^\d{1,3}$/.test(opts.limit.trim()) || Number(opts.limit) < 1 || Number(opts.limit) > 500)
      throw usageError(`--limit '${opts.limit}' is not a whole number from 1 to 500`)
    query.limit = Number(opts.limit)
  }
  needUser(deps, 'alerts history')
  return ok(await deps.platform.listAlertHistory({ query }))
}

export function human(r: AlertHistory): string[] {
  if (!r.alerts.length) return ['No alerts fired.']
  return r.alerts.map((a) => `${a.firedAt}  ${a.kind.padEnd(13)}  ${a.message}  (rule ${a.ruleId})`)
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('history')
    .description('the alerts your rules fired, newest first')
    .option('--agent <id>', "only this agent's")
    .option('--limit <n>', 'at most this many, 1 to 500 (default 100)')
  return platformAction(cmd, ctx, run, human)
}
