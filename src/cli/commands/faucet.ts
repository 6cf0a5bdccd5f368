import { Command, Option } from 'commander'
import { type CliContext, emit } from '../context.js'
import { callDaemon } from '../daemon-call.js'
import * as validate from '../validate.js'
import { choiceOption, localNetworks, tokenSymbols } from '../values.js'

export type FaucetOptions = { to: string; token?: string; amount?: string; network?: string }
type FaucetResult = { network: string; to: string; token: string; amount: string; tx: string }

/** Mints test tokens on the local profile's embedded chains. */
export async function run(opts: FaucetOptions, ctx: CliContext): Promise<FaucetResult> {
  if (opts.network === 'local-solana') validate.solanaAddress(opts.to, '--to')
  else validate.evmAddress(opts.to, '--to')
  if (opts.amount !== undefined) validate.amount(opts.amount, '--amount')
  const spinner = ctx.spinner(`minting ${opts.amount ?? ''} ${opts.token ?? 'USDC'}`.replace('  ', ' '))
  let result: FaucetResult
  try {
    result = await callDaemon<FaucetResult>(ctx, '/api/local/faucet', {
      body: { to: opts.to, token: opts.token, amount: opts.amount, network: opts.network },
    })
  } finally {
    spinner.stop()
  }
  emit(ctx, result, () => [`Sent ${result.amount} ${result.token} to ${result.to} on ${result.network} (${result.tx})`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('faucet')
    .description('mint test tokens to any address (local profile only)')
    .requiredOption('--to <address>', 'recipient (EVM address, or Solana public key with --network local-solana)')
    .addOption(
      choiceOption(
        '--token <symbol>',
        'USDC, PUSD, XUSD, ETH on EVM; SOL, USDC, PUSD, XUSD on Solana',
        tokenSymbols,
      ).default('USDC'),
    )
    .option('--amount <amount>', 'human amount', '1000')
    .addOption(new Option('--network <key>', 'which embedded chain (default local-base)').choices(localNetworks))
    .action(async (opts: FaucetOptions) => void (await run(opts, ctx())))
}
