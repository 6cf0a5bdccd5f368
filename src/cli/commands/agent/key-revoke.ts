import { Command } from 'commander'
import type { AgentKeyInfo } from '../../../sdk/platform/agents.js'
import type { CliContext } from '../../context.js'
import { type CommandResult, needUser, ok, type PlatformDeps, platformAction, uuidArg } from '../platform-shared.js'
import { agentArg } from './show.js'

export type RevokeAgentKeyOptions = { agent?: string; keyId: string }

/** Revokes an agent key at once (idempotent: revoking twice answers the same). */
export async function run(opts: RevokeAgentKeyOptions, deps: PlatformDeps): Promise<CommandResult<AgentKeyInfo>> {
  const id = agentArg(opts.agent, deps, '--agent')
  const keyId = uuidArg(opts.keyId ?? '', '<key-id>')
  needUser(deps, 'agent key revoke')
  return ok(await deps.platform.revokeAgentKey({ params: { id, keyId } }))
}

export function human(k: AgentKeyInfo): string[] {
  return [`Revoked agent key ${k.hint} (${k.id}) at ${k.revokedAt}.`]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('revoke')
    .description('revoke an agent key at once')
    .argument('<key-id>', 'the key id (from `parx agent key create`)')
    .option('--agent <id>', 'agent id (default: PARX_AGENT_ID or the stored agent)')
  return platformAction(cmd, ctx, run, human)
}
