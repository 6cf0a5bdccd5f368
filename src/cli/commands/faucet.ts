import { Command } from 'commander'
import { callJson } from '../../sdk/http.js'
import { emit, type CliContext } from '../context.js'

export type FaucetOptions = { to: string; token?: string; amount?: string; network?: string }
type FaucetResult = { network: string; to: string; token: string; amount: string; tx: string }

/** Mints test tokens on the local profile's embedded chains. */
export async function run(opts: FaucetOptions, ctx: CliContext): Promise<FaucetResult> {
  const result = await callJson<FaucetResult>(ctx.apiUrl, '/api/local/faucet', {
    body: { to: opts.to, token: opts.token, amount: opts.amount, network: opts.network },
  })
  emit(ctx, result, () => [`Sent ${result.amount} ${result.token} to ${result.to} on ${result.network} (${result.tx})`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('faucet')
    .description('mint test tokens to any address (local profile only)')
    .requiredOption('--to <address>', 'recipient (EVM address, or Solana public key with --network local-solana)')
    .option('--token <symbol>', 'USDC, PUSD, XUSD, ETH on EVM; SOL, USDC, PUSD, XUSD on Solana', 'USDC')
    .option('--amount <amount>', 'human amount', '1000')
    .option('--network <key>', 'local-base, local-radius or local-solana (default local-base)')
    .action(async (opts: FaucetOptions) => void (await run(opts, ctx())))
}
