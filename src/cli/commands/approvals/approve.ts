import { Command } from 'commander'
import type { Approval } from '../../../sdk/platform/approvals.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { decide } from './decide.js'

export type ApproveOptions = { id?: string }

/**
 * Approves a pending approval. Nothing is paid by this: the agent's same request with the
 * approval id (or its `pay --wait-approval`) is then signed and paid once, within its limits as
 * they are at that moment.
 */
export async function run(opts: ApproveOptions, deps: PlatformDeps): Promise<CommandResult<Approval>> {
  return ok(await decide(opts.id, deps, 'approve'))
}

export function human(a: Approval): string[] {
  return [
    `Approved ${a.id}: the agent may now ${a.kind} ${a.amount} ` +
      `${a.token} once, until ${a.expiresAt} (its limits still apply).`,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('approve')
    .description('approve a held pay or send: the agent may then make it once, within its limits')
    .argument('<id>', 'the approval id (parx approvals)')
  return platformAction(cmd, ctx, run, human)
}
