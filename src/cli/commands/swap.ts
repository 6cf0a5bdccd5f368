import { Command } from 'commander'
import type { SwapResult } from '../../sdk/platform/wallet.js'
import { type CliContext, label } from '../context.js'
import {
  agentCall,
  type CommandResult,
  decimalArg,
  type PlatformDeps,
  platformAction,
  tokenArg,
} from './platform-shared.js'

export type SwapOptions = { from: string; to: string; amount: string }

/**
 * Swaps in the agent wallet on Base (USDC->TOKEN_A, TOKEN_A->TOKEN_B, TOKEN_B->TOKEN_A); counts toward the agent's
 * limits.
 */
export async function run(opts: SwapOptions, deps: PlatformDeps): Promise<CommandResult<SwapResult>> {
  const from = tokenArg(opts.from ?? '', '--from')
  const to = tokenArg(opts.to ?? '', '--to')
  const amount = decimalArg(opts.amount ?? '', '--amount')
  return agentCall(deps, 'swap', `swapping ${amount} ${from} to ${to}`, (id) =>
    deps.platform.swap({ params: { id }, body: { from, to, amount } }),
  )
}

export function human(s: SwapResult, ctx: CliContext): string[] {
  return [
    `Swapped ${s.from.amount} ${s.from.token} for ${s.to.amount} ${s.to.token} on ${s.network}.`,
    `${label(ctx, 'transaction')}${s.transaction}`,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('swap')
    .description('swap tokens in the agent wallet (Base only)')
    .requiredOption('--from <symbol>', 'token to sell')
    .requiredOption('--to <symbol>', 'token to buy')
    .requiredOption('--amount <amount>', 'amount of --from, e.g. 10')
  return platformAction(cmd, ctx, run, human)
}
