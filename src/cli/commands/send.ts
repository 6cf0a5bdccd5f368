import { Command } from 'commander'
import type { SendResult } from '../../sdk/platform/wallet.js'
import { type CliContext, label } from '../context.js'
import { WAIT_APPROVAL_DEFAULT_SECONDS, waitSeconds, withApproval } from './approval-wait.js'
import {
  addressArg,
  agentIdOf,
  type CommandResult,
  decimalArg,
  needAgent,
  ok,
  type PlatformDeps,
  platformAction,
  spinning,
  tokenArg,
  uuidArg,
} from './platform-shared.js'

export type SendOptions = {
  to: string
  amount: string
  token?: string
  /**
   * Above the approval threshold: wait this long (seconds; true: the default) for the owner, then send with the
   * approval.
   */
  waitApproval?: string | boolean
  /** An approval an earlier APPROVAL_REQUIRED named: send with it (the same to, amount and token). */
  approvalId?: string
}

/**
 * Sends tokens from the agent wallet: gasless on Base (ERC-4337), a direct transfer on Radius and
 * Tempo. Default token TOKEN_A. Above the agent's approval threshold the platform holds it
 * (APPROVAL_REQUIRED, exit 11) as it does a pay: --wait-approval waits for the owner, --approval-id
 * comes back with an approval.
 */
export async function run(opts: SendOptions, deps: PlatformDeps): Promise<CommandResult<SendResult>> {
  const to = addressArg(opts.to ?? '', '--to')
  const amount = decimalArg(opts.amount ?? '', '--amount')
  const token = opts.token === undefined ? undefined : tokenArg(opts.token, '--token')
  const wait = waitSeconds(opts.waitApproval, '--wait-approval')
  const approvalId = opts.approvalId === undefined ? undefined : uuidArg(opts.approvalId, '--approval-id')
  needAgent(deps, 'send')
  const id = await agentIdOf(deps)
  const what = `sending ${amount} ${token ?? ''}`.trim()
  // The same to, amount and token each time: an approval binds exactly this send.
  return ok(
    await withApproval(deps, { wait, approvalId, retry: (a) => `send again with --approval-id ${a}` }, (approvalId) =>
      spinning(deps, approvalId ? `${what} with approval ${approvalId}` : what, () =>
        deps.platform.send({
          params: { id },
          body: { to, amount, ...(token ? { token } : {}), ...(approvalId ? { approvalId } : {}) },
        }),
      ),
    ),
  )
}

export function human(s: SendResult, ctx: CliContext): string[] {
  return [
    `Sent ${s.amount} ${s.token} to ${s.to} on ${s.network}.`,
    `${label(ctx, 'transaction')}${s.transaction}`,
    ...(s.userOperation ? [`${label(ctx, 'user operation')}${s.userOperation}`] : []),
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('send')
    .description('send tokens from the agent wallet (gasless on Base; direct on Radius and Tempo)')
    .requiredOption('--to <address>', 'recipient address')
    .requiredOption('--amount <amount>', 'amount, e.g. 1.5')
    .option('--token <symbol>', 'token (default TOKEN_A)')
    .option(
      '--wait-approval [seconds]',
      `above the agent's approval threshold, wait for the owner's decision ` +
        `(default ${WAIT_APPROVAL_DEFAULT_SECONDS} s), then send once approved`,
    )
    .option(
      '--approval-id <id>',
      'send with an approval an earlier APPROVAL_REQUIRED named (the ' +
        'same --to, --amount and --token), once the owner approved it',
    )
  return platformAction(cmd, ctx, run, human)
}
