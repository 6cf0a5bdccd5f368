import { Argument, Command, Option } from 'commander'
import { xchainPaths } from '../../../sdk/xchain/paths.js'
import type { EvmOriginBuilt, SolOriginBuilt, XchainRail } from '../../../sdk/xchain/wire.js'
import { type CliContext, emit, label } from '../../context.js'
import { callDaemon } from '../../daemon-call.js'
import { apiKeyHelp, type PartnerOptions, partnerHeaders, when } from './shared.js'

export type BuildOptions = PartnerOptions & {
  user: string
  in: string
  out?: string
  amount: string
  recipient: string
}

/**
 * `parx xchain build <rail>`: builds a cross-chain order for a user to sign (docs/cross-chain.md "Cross-chain orders").
 * It signs
 * nothing and moves nothing: the user's wallet signs what it prints (`--output json` has every
 * field); the SDK's openSolOrigin / openEvmOrigin build, sign and submit in one call.
 */
export async function run(
  rail: XchainRail,
  opts: BuildOptions,
  ctx: CliContext,
): Promise<SolOriginBuilt | EvmOriginBuilt> {
  const common = { user: opts.user, inSym: opts.in, outSym: opts.out ?? opts.in, uiAmount: opts.amount }
  const [path, body] =
    rail === 'sol-origin'
      ? [xchainPaths.solBuild, { ...common, recipientEvm: opts.recipient }]
      : [xchainPaths.evmBuild, { ...common, recipientSol: opts.recipient }]
  const built = await callDaemon<SolOriginBuilt | EvmOriginBuilt>(ctx, path, {
    body,
    headers: partnerHeaders(ctx, opts),
  })
  emit(ctx, built, () => describe(ctx, rail, built))
  return built
}

function describe(ctx: CliContext, rail: XchainRail, b: SolOriginBuilt | EvmOriginBuilt): string[] {
  const { bold, dim } = ctx.color
  const [from, to] = rail === 'sol-origin' ? ['Solana', 'Base'] : ['Base', 'Solana']
  const lines = [
    `${label(ctx, 'order')}${bold(b.orderId)} (${rail})`,
    `${label(ctx, 'pays')}${b.inAmount} ${b.inToken} on ${from} ` +
      `-> ${b.outAmount} ${b.outToken} on ${to} to ${b.recipient}`,
    `${label(ctx, 'filled by')}${when(b.fillDeadline)}; unfilled, refundable after ${when(b.expires)}`,
  ]
  if (b.rail === 'sol-origin') {
    lines.push(
      `${label(ctx, 'next')}the user signs txB64 and submits it before block ` +
        `height ${b.lastValidBlockHeight} (the solver already paid the fee):`,
    )
    lines.push(b.txB64)
  } else {
    lines.push(
      `${label(ctx, 'next')}the user signs the order (see --output ` +
        `json: the gasless typed data, or the plain calls) and submits it`,
    )
  }
  lines.push(dim(`then: parx xchain status ${b.orderId}${rail === 'sol-origin' ? '' : ` --rail ${rail}`} --wait`))
  return lines
}

export function define(ctx: () => CliContext): Command {
  return new Command('build')
    .description('build a cross-chain order for a user to sign (nothing is signed or moved)')
    .addArgument(new Argument('<rail>', 'direction').choices(['sol-origin', 'evm-origin']))
    .requiredOption('--user <address>', 'the wallet that funds the order (Solana for sol-origin, Base for evm-origin)')
    .requiredOption('--in <symbol>', 'input token symbol on the origin chain')
    .option('--out <symbol>', 'output token symbol on the destination chain (default: the input symbol)')
    .requiredOption('--amount <decimal>', "input amount, e.g. 12.5 (paid 1:1 at each token's decimals)")
    .requiredOption('--recipient <address>', 'who receives the output (checksummed Base address, or Solana public key)')
    .addOption(new Option('--api-key <key>', apiKeyHelp))
    .action(async (rail: XchainRail, opts: BuildOptions) => void (await run(rail, opts, ctx())))
}
