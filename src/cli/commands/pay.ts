import { Command } from 'commander'
import type { PayAnswer, PayDryRun, Price } from '../../sdk/platform/pay.js'
import { label, type CliContext } from '../context.js'
import { CliError, usageError } from '../errors.js'
import { confirm } from '../prompt.js'
import { agentIdOf, decimalArg, decimalLess, httpUrlArg, needAgent, ok, platformAction, spinning, type CommandResult, type PlatformDeps } from './platform-shared.js'

export type PayOptions = { url: string; max?: string; protocol?: string; dryRun?: boolean; yes?: boolean }

/**
 * Pays a 402-gated URL: the platform fetches it, reads the seller's price, pays (x402 or MPP) and
 * returns the seller's answer with a receipt. No amount is passed; --max caps the price. On a
 * terminal the price, network, token and payee are shown and confirmed first (unless --yes), and
 * the payment is then capped at the price shown. Without a terminal it pays within the agent's
 * limits and --max without asking: agents script it, and the limits are the guard.
 */
export async function run(opts: PayOptions, deps: PlatformDeps): Promise<CommandResult<PayAnswer>> {
  const url = httpUrlArg(opts.url ?? '', '--url')
  let maxAmount = opts.max === undefined ? undefined : decimalArg(opts.max, '--max')
  if (opts.protocol !== undefined && opts.protocol !== 'x402' && opts.protocol !== 'mpp') throw usageError(`--protocol '${opts.protocol}' is not x402 or mpp`)
  const protocol = opts.protocol as 'x402' | 'mpp' | undefined
  needAgent(deps, 'pay')
  const id = await agentIdOf(deps)
  const pay = (body: { dryRun: boolean; maxAmount?: string }, what: string) => spinning(deps, what, () => deps.platform.pay({ params: { id }, body: { url, ...(protocol ? { protocol } : {}), ...body } }))
  if (opts.dryRun) return ok(await pay({ dryRun: true, maxAmount }, `asking ${url} for its price`))

  if (deps.ctx.interactive && !opts.yes) {
    const quote = (await pay({ dryRun: true, maxAmount }, `asking ${url} for its price`)) as PayDryRun
    if (quote.price) {
      for (const line of priceLines(quote, deps.ctx)) deps.ctx.stderr(line)
      const ask = deps.confirm ?? ((m: string) => confirm(deps.ctx, m))
      if (!(await ask(`Pay ${quote.price.amount} ${quote.price.token} to ${quote.price.payTo}?`))) throw new CliError('CANCELLED', 'not paid: cancelled at the confirmation')
      // The payment may not cost more than what was shown and accepted.
      if (maxAmount === undefined || decimalLess(quote.price.amount, maxAmount)) maxAmount = quote.price.amount
    }
  }
  return ok(await pay({ dryRun: false, maxAmount }, `paying ${url}`))
}

function priceLines(q: PayDryRun, ctx: CliContext): string[] {
  const p = q.price as Price
  return [
    `${label(ctx, 'price')}${p.amount} ${p.token}`,
    `${label(ctx, 'network')}${p.network} (${p.protocol})`,
    `${label(ctx, 'payee')}${p.payTo}`,
    `${label(ctx, 'limits')}${q.withinLimits ? 'within the agent\'s limits' : ctx.color.red('over the agent\'s limits: the platform will refuse it')}${q.remainingTodayUsd !== null ? ` (${q.remainingTodayUsd} USD left today)` : ''}`,
  ]
}

/** Text mode: the seller's body is the data (stdout); the receipt goes to stderr with the messages. */
export function human(a: PayAnswer, ctx: CliContext): string[] {
  if (a.dryRun) return a.price ? priceLines(a, ctx) : ['The URL asked for no payment.']
  const r = a.receipt
  ctx.stderr(r ? `Paid ${r.amount} ${r.token} on ${r.network} (${r.protocol}); transaction ${r.transaction}. Seller answered ${a.status}.` : `No payment was asked; the URL answered ${a.status}.`)
  if (a.bodyEncoding === 'base64') return [`(binary answer of ${Buffer.from(a.body, 'base64').length} bytes; use --output json for it in base64)`]
  return [a.body]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('pay')
    .description("pay a 402-gated URL: the platform pays the seller's price and returns its answer")
    .requiredOption('--url <url>', 'the seller URL')
    .option('--max <amount>', 'refuse when the seller asks more than this (in its token)')
    .option('--protocol <x402|mpp>', 'pay only with this protocol (default: x402 when offered, else MPP)')
    .option('--dry-run', 'only show the price and whether the limits allow it')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
  return platformAction(cmd, ctx, run, human)
}
