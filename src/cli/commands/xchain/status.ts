import { Command, Option } from 'commander'
import { exitCodes } from '../../../errors/exit-codes.js'
import { xchainPaths } from '../../../sdk/xchain/paths.js'
import { isFinal, OrderWaitTimeoutError, pollStatus } from '../../../sdk/xchain/poll.js'
import type { XchainRail, XchainStatusResponse } from '../../../sdk/xchain/wire.js'
import { type CliContext, emit, label } from '../../context.js'
import { callDaemon } from '../../daemon-call.js'
import { CliError, usageError } from '../../errors.js'
import { apiKeyHelp, type PartnerOptions, partnerHeaders } from './shared.js'

export type StatusOptions = PartnerOptions & { rail?: XchainRail; wait?: boolean; timeout?: string; interval?: string }

/**
 * `parx xchain status <orderId>`: where a cross-chain order is (docs/cross-chain.md "Cross-chain orders"). With --wait
 * it polls
 * until the order is claimed, refunded or needs attention; the exit code then says which (0 claimed,
 * 1 otherwise), so a script can branch on it as on `gh run watch --exit-status`.
 */
export async function run(orderId: string, opts: StatusOptions, ctx: CliContext): Promise<number> {
  const read = () =>
    callDaemon<XchainStatusResponse>(ctx, xchainPaths.status.replace(':orderId', encodeURIComponent(orderId)), {
      query: { rail: opts.rail },
      headers: partnerHeaders(ctx, opts),
    })
  let s = await read()
  if (opts.wait && !isFinal(s.status)) {
    const timeoutMs = seconds(opts.timeout ?? '120', '--timeout') * 1000
    const intervalMs = seconds(opts.interval ?? '0.5', '--interval') * 1000
    const line = (x: XchainStatusResponse) => `order ${x.orderId}: ${x.status} (${x.stage ?? 'no stage yet'})`
    const spinner = ctx.spinner(line(s))
    try {
      s = await pollStatus(read, { timeoutMs, intervalMs, onUpdate: (x) => spinner.update(line(x)) })
    } catch (e) {
      if (!(e instanceof OrderWaitTimeoutError)) throw e
      // Text: where it stands, then the error. JSON: the error alone (one document per failure).
      if (ctx.output === 'text') for (const l of describe(ctx, e.last)) ctx.stdout(l)
      throw new CliError(
        'WAIT_TIMEOUT',
        `order ${e.last.orderId} is still ${e.last.status} after ${timeoutMs / 1000} s; ` +
          `it goes on without you: run \`parx xchain status ${e.last.orderId} --wait\` again`,
      )
    } finally {
      spinner.stop()
    }
  }
  emit(ctx, s, () => describe(ctx, s))
  return !opts.wait || s.status === 'claimed' ? exitCodes.ok : exitCodes.failure
}

function describe(ctx: CliContext, s: XchainStatusResponse): string[] {
  const { green, red, yellow, bold } = ctx.color
  const paint = s.status === 'claimed' ? green : s.status === 'attention' ? red : yellow
  const lines = [
    `${label(ctx, 'order')}${bold(s.orderId)} (${s.rail}) ` +
      `${paint(s.status)}${s.stage && s.stage !== s.status ? ` (${s.stage})` : ''}`,
  ]
  if (s.recipient) lines.push(`${label(ctx, 'recipient')}${s.recipient}`)
  if (s.delivered !== '0') lines.push(`${label(ctx, 'delivered')}${s.delivered} (base units of the output token)`)
  for (const [k, v] of [
    ['deliver', s.deliverRef],
    ['claim', s.claimRef],
    ['refund', s.refundRef],
  ] as const)
    if (v) lines.push(`${label(ctx, k)}${v}`)
  if (s.reason) lines.push(`${label(ctx, 'reason')}${s.reason}`)
  if (s.status === 'unknown')
    lines.push(
      `${label(ctx, 'note')}no lock of this order is confirmed on the ` +
        `${s.rail === 'sol-origin' ? 'Solana' : 'Base'} chain (yet); check --rail`,
    )
  return lines
}

function seconds(v: string, flag: string): number {
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) throw usageError(`${flag} takes seconds, a positive number (got '${v}')`)
  return n
}

export function define(ctx: () => CliContext): Command {
  return new Command('status')
    .description(
      "a cross-chain order's status; --wait polls until claimed, refunded or attention (exit 0 only when claimed)",
    )
    .argument('<orderId>', 'the order id (64 hex characters, with or without 0x)')
    .addOption(
      new Option('--rail <rail>', 'the direction it was opened in')
        .choices(['sol-origin', 'evm-origin'])
        .default('sol-origin'),
    )
    .option('--wait', 'poll until a final status')
    .option('--timeout <seconds>', 'with --wait: give up after this long (default 120)')
    .option('--interval <seconds>', 'with --wait: between polls (default 0.5)')
    .addOption(new Option('--api-key <key>', apiKeyHelp))
    .action(async (orderId: string, opts: StatusOptions) => {
      process.exitCode = await run(orderId, opts, ctx())
    })
}
