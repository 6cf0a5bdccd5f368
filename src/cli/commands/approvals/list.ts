import { Command } from 'commander'
import type { Approval, ApprovalList } from '../../../sdk/platform/approvals.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

export type ListOptions = { all?: boolean }

/**
 * The user's approvals: pays and sends of its agents above their `approveAboveUsd`, held with
 * nothing signed. Pending ones by default (what waits for a decision); `--all` the latest 100 of
 * any state. User key only.
 */
export async function run(opts: ListOptions, deps: PlatformDeps): Promise<CommandResult<ApprovalList>> {
  needUser(deps, 'approvals')
  return ok(await deps.platform.listApprovals({ query: { state: opts.all ? 'all' : 'pending' } }))
}

/** One line an owner decides on: what, for how much, from which agent, until when. */
export const approvalLine = (a: Approval): string =>
  `${a.id}  ${a.state.padEnd(8)}  ${a.kind} ${a.amount} ${a.token} (${a.amountUsd} USD) ` +
  `${a.kind === 'pay' ? `${a.method} ${a.target}` : `to ${a.target}`}  agent ${a.agentId}  expires ${a.expiresAt}`

export function human(r: ApprovalList): string[] {
  if (!r.approvals.length) return ['No approvals waiting.']
  return [...r.approvals.map(approvalLine), 'Decide with: parx approvals approve <id>  |  parx approvals deny <id>']
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('list')
    .description('pays and sends held for your approval (pending by default)')
    .option('--all', 'the latest 100 approvals of any state (approved, denied, consumed, expired)')
  return platformAction(cmd, ctx, run, human)
}
