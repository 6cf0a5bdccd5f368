import { Command } from 'commander'
import type { SendResult } from '../../sdk/platform/wallet.js'
import { label, type CliContext } from '../context.js'
import { addressArg, agentCall, decimalArg, platformAction, tokenArg, type CommandResult, type PlatformDeps } from './platform-shared.js'

export type SendOptions = { to: string; amount: string; token?: string }

/** Sends tokens from the agent wallet: gasless on Base (ERC-4337), a direct transfer on Radius and Tempo. Default token TOKEN_A. */
export async function run(opts: SendOptions, deps: PlatformDeps): Promise<CommandResult<SendResult>> {
  const to = addressArg(opts.to ?? '', '--to')
  const amount = decimalArg(opts.amount ?? '', '--amount')
  const token = opts.token === undefined ? undefined : tokenArg(opts.token, '--token')
  return agentCall(deps, 'send', `sending ${amount} ${token ?? ''}`.trim(), (id) => deps.platform.send({ params: { id }, body: { to, amount, ...(token ? { token } : {}) } }))
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
  return platformAction(cmd, ctx, run, human)
}
