import { Command } from 'commander'
import type { Approval } from '../../../sdk/platform/approvals.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, ok, type PlatformDeps, platformAction } from '../platform-shared.js'
import { decide } from './decide.js'

export type DenyOptions = { id?: string }

/** Denies a pending approval: nothing is ever signed for it; the agent's retry answers APPROVAL_NOT_USABLE. */
export async function run(opts: DenyOptions, deps: PlatformDeps): Promise<CommandResult<Approval>> {
  return ok(await decide(opts.id, deps, 'deny'))
}

export function human(a: Approval): string[] {
  return [`Denied ${a.id}: nothing is signed or paid for it.`]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('deny')
    .description('deny a held pay or send: nothing is ever signed for it')
    .argument('<id>', 'the approval id (parx approvals)')
  return platformAction(cmd, ctx, run, human)
}
