import { Command } from 'commander'
import { ApiError } from '../../sdk/http-errors.js'
import type { PayAnswer, PayDryRun, PayResult, Price } from '../../sdk/platform/pay.js'
import { type CliContext, label } from '../context.js'
import { CliError, usageError } from '../errors.js'
import { confirm } from '../prompt.js'
import { WAIT_APPROVAL_DEFAULT_SECONDS, waitSeconds, withApproval } from './approval-wait.js'
import type { RequestInput } from './pay-request.js'
import {
  agentIdOf,
  type CommandResult,
  decimalArg,
  decimalLess,
  httpUrlArg,
  needAgent,
  ok,
  type PlatformDeps,
  platformAction,
  spinning,
  uuidArg,
} from './platform-shared.js'

export type PayOptions = {
  /** The seller URL: the positional argument or --url. */
  url?: string
  max?: string
  protocol?: string
  /** x402 only with this scheme (exact, auth-capture); default: the platform's preference. */
  scheme?: string
  dryRun?: boolean
  yes?: boolean
  /** Write the seller's answer body to this file (binary safe). */
  out?: string
  /** `mcp` when the MCP tool calls: messages name its fields (maxAmount, method...) instead of flags. */
  via?: 'cli' | 'mcp'
  /**
   * Above the approval threshold: wait this long (seconds; true: the default) for the owner, then pay with the
   * approval.
   */
  waitApproval?: string | boolean
  /** An approval an earlier APPROVAL_REQUIRED named: pay with it (the same request). */
  approvalId?: string
} & RequestInput

/**
 * Pays a 402-gated URL: the platform fetches it (with the method, headers and body given, as curl
 * takes them), reads the seller's price, pays (x402 or MPP) and returns the seller's answer with a
 * receipt. No amount is passed; --max caps the price. On a terminal the price, network, token and
 * payee are shown and confirmed first (unless --yes), and the payment is then capped at the price
 * shown. Without a terminal it pays within the agent's limits and --max without asking: agents
 * script it, and the limits are the guard.
 */
export async function run(opts: PayOptions, deps: PlatformDeps): Promise<CommandResult<PayAnswer>> {
  const mcp = opts.via === 'mcp'
  const maxFlag = mcp ? 'maxAmount' : '--max'
  const url = httpUrlArg(opts.url ?? '', mcp ? 'url' : 'the URL (argument or --url)')
  let maxAmount = opts.max === undefined ? undefined : decimalArg(opts.max, maxFlag)
  if (opts.protocol !== undefined && opts.protocol !== 'x402' && opts.protocol !== 'mpp')
    throw usageError(`${mcp ? 'protocol' : '--protocol'} '${opts.protocol}' is not x402 or mpp`)
  const protocol = opts.protocol as 'x402' | 'mpp' | undefined
  if (opts.scheme !== undefined && opts.scheme !== 'exact' && opts.scheme !== 'auth-capture')
    throw usageError(`${mcp ? 'scheme' : '--scheme'} '${opts.scheme}' is not exact or auth-capture`)
  const scheme = opts.scheme as 'exact' | 'auth-capture' | undefined
  const { sellerRequest, cliNames, mcpNames } = await import('./pay-request.js')
  const request = await sellerRequest(url, opts, { names: mcp ? mcpNames : cliNames, stdin: deps.stdin })
  // Only what differs from a plain GET goes on the wire.
  const sent = {
    ...(request.method !== 'GET' ? { method: request.method } : {}),
    ...(Object.keys(request.headers).length ? { headers: request.headers } : {}),
    ...(request.body !== undefined ? { body: request.body } : {}),
  }
  const wait = waitSeconds(opts.waitApproval, mcp ? 'waitApproval' : '--wait-approval')
  const approvalId =
    opts.approvalId === undefined ? undefined : uuidArg(opts.approvalId, mcp ? 'approvalId' : '--approval-id')
  if (opts.out !== undefined) await outWritable(opts.out)
  needAgent(deps, 'pay')
  const id = await agentIdOf(deps)
  const pay = (body: { dryRun: boolean; maxAmount?: string; approvalId?: string }, what: string) =>
    spinning(deps, what, () =>
      deps.platform.pay({
        params: { id },
        body: { url, ...sent, ...(protocol ? { protocol } : {}), ...(scheme ? { scheme } : {}), ...body },
      }),
    )
  if (opts.dryRun) return ok(await pay({ dryRun: true, maxAmount }, `asking ${url} for its price`))

  let capped = false
  if (deps.ctx.interactive && !opts.yes) {
    const quote = (await pay({ dryRun: true, maxAmount }, `asking ${url} for its price`)) as PayDryRun
    if (quote.price) {
      for (const line of priceLines(quote, deps.ctx)) deps.ctx.stderr(line)
      const ask = deps.confirm ?? ((m: string) => confirm(deps.ctx, m))
      if (!(await ask(`Pay ${quote.price.amount} ${quote.price.token} to ${quote.price.payTo}?`)))
        throw new CliError('CANCELLED', 'not paid: cancelled at the confirmation')
      // The payment may not cost more than what was shown and accepted.
      if (maxAmount === undefined || decimalLess(quote.price.amount, maxAmount)) {
        maxAmount = quote.price.amount
        capped = true
      }
    }
  }
  let answer: PayAnswer
  try {
    // Held for the owner: waited for (--wait-approval), then the same request with the approval, once.
    answer = await withApproval(
      deps,
      { wait, approvalId, retry: (id) => `pay again with --approval-id ${id}` },
      (approvalId) =>
        pay(
          { dryRun: false, maxAmount, ...(approvalId ? { approvalId } : {}) },
          approvalId ? `paying ${url} with approval ${approvalId}` : `paying ${url}`,
        ),
    )
  } catch (e) {
    // The platform names its field (maxAmount); say what the user set: the flag, or the price accepted at the prompt.
    const above = e instanceof ApiError && e.code === 'PRICE_ABOVE_MAX' ? priceAboveMax(e.body) : undefined
    if (above) {
      const cap = capped ? `the price you accepted (${above.maxAmount})` : `${maxFlag} ${above.maxAmount}`
      ;(e as ApiError).message = `the seller asks ${above.amount} ${above.token}, above ${cap}; nothing was paid`
    }
    throw e
  }
  if (opts.out !== undefined && !answer.dryRun) await writeAnswer(opts.out, answer)
  return ok(answer)
}

/**
 * PRICE_ABOVE_MAX's fields (the cap, the seller's price, its token); undefined from a platform that sends none: its
 * message then stands.
 */
function priceAboveMax(body: unknown): { maxAmount: string; amount: string; token: string } | undefined {
  const f = (body ?? {}) as Record<string, unknown>
  return typeof f.maxAmount === 'string' && typeof f.amount === 'string' && typeof f.token === 'string'
    ? { maxAmount: f.maxAmount, amount: f.amount, token: f.token }
    : undefined
}

/** Before paying: an answer that cannot be saved must not be bought. */
async function outWritable(path: string): Promise<void> {
  const { access, stat, constants } = await import('node:fs/promises')
  const { dirname, resolve } = await import('node:path')
  const abs = resolve(path)
  const s = await stat(abs).catch(() => undefined)
  if (s?.isDirectory()) throw usageError(`--out ${path} is a directory; name a file`)
  try {
    await access(s ? abs : dirname(abs), constants.W_OK)
  } catch (e) {
    throw usageError(`--out ${path}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
}

async function writeAnswer(path: string, a: PayResult): Promise<void> {
  const { writeFile } = await import('node:fs/promises')
  await writeFile(path, Buffer.from(a.body, a.bodyEncoding === 'base64' ? 'base64' : 'utf8'))
}

function priceLines(q: PayDryRun, ctx: CliContext): string[] {
  const p = q.price as Price
  return [
    `${label(ctx, 'price')}${p.amount} ${p.token}`,
    `${label(ctx, 'network')}${p.network} (${p.protocol}${q.offer ? ` ${q.offer.scheme}` : ''})`,
    `${label(ctx, 'payee')}${p.payTo}`,
    verdictLine(q, ctx),
  ]
}

/** Would pay, or which rule refuses and what to do; and what each window still allows. */
function verdictLine(q: PayDryRun, ctx: CliContext): string {
  const left = Object.entries(q.remaining ?? {})
    .filter(([, v]) => v !== null)
    .map(([w, v]) => `${v} USD ${w === 'perPayment' ? 'per payment' : `left this ${w}`}`)
  const r = q.refusedBy
  // Held for the owner comes first, as on the pay path: the approval gate runs before the limits are reserved.
  const asked = q.approvalRequired
    ? `would ask the owner's approval first (above this agent's approval ` +
      `threshold of ${q.approveAboveUsd} USD; APPROVAL_REQUIRED, exit 11)`
    : ''
  const verdict = r
    ? ctx.color.red(
        `${asked ? `${asked}, then ` : ''}would be refused by the ${r.scope}'s ` +
          `${r.rule}${r.value !== null ? ` (${r.value})` : ''}: ${r.message}`,
      )
    : asked
      ? ctx.color.yellow(`${asked}, then pay (within the rules and limits)`)
      : 'would pay (within the rules and limits)'
  return `${label(ctx, 'verdict')}${verdict}${left.length ? ` [${left.join(', ')}]` : ''}`
}

/**
 * Text mode: the seller's body is the data (stdout, or the --out file); the receipt goes to stderr
 * with the messages.
 */
export function human(a: PayAnswer, ctx: CliContext, out?: string): string[] {
  // A dry run exits 0 either way: a refusal is the verdict, not an error.
  if (a.dryRun)
    return a.price ? priceLines(a, ctx) : a.refusedBy ? [verdictLine(a, ctx)] : ['The URL asked for no payment.']
  const r = a.receipt
  ctx.stderr(
    r
      ? `Paid ${r.amount} ${r.token} on ${r.network} (${r.protocol}); ${settledBy(r)}. Seller answered ${a.status}.`
      : `No payment was asked; the URL answered ${a.status}.`,
  )
  if (r?.signed)
    ctx.stderr(`Signed receipt for payment ${r.signed.message.paymentId} (export with \`parx payments --receipts\`).`)
  const bytes = a.bodyEncoding === 'base64' ? Buffer.from(a.body, 'base64').length : Buffer.byteLength(a.body)
  if (out !== undefined) return (ctx.stderr(`Wrote the answer (${bytes} bytes) to ${out}.`), [])
  if (a.bodyEncoding === 'base64')
    return (
      ctx.stderr(
        `The answer is binary (${bytes} bytes): save it with --out FILE, or use --output json for it in base64.`,
      ),
      []
    )
  return [a.body]
}

const collect = (v: string, prev: string[] = []) => [...prev, v]

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('pay')
    .description(
      "pay a 402-gated URL: the platform pays the seller's price and returns its answer (curl's -X, -H, -d, --json)",
    )
    .argument('[url]', 'the seller URL (or --url)')
    .option('--url <url>', 'the seller URL')
    .option('-X, --method <method>', 'GET, POST, PUT, PATCH or DELETE (default GET; POST with -d or --json)')
    .option('-H, --header <header>', "a request header, 'Name: value' (repeatable)", collect)
    .option('-d, --data <body>', 'the request body: text, @file, or @- for stdin (sent as is)')
    .option('--json <body>', 'a JSON body (text, @file or @-); sets content-type and accept to application/json')
    .option('--out <file>', "write the seller's answer body to this file (binary safe) instead of stdout")
    .option('--max <amount>', 'refuse when the seller asks more than this (in its token)')
    .option('--protocol <x402|mpp>', 'pay only with this protocol (default: x402 when offered, else MPP)')
    .option(
      '--scheme <exact|auth-capture>',
      'x402 only with this scheme (default: auth-capture, a refundable ' +
        'hold, when the seller offers it; config pay.preferAuthCapture)',
    )
    .option('--dry-run', 'only show the price and whether the limits allow it')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .option(
      '--wait-approval [seconds]',
      `above the agent's approval threshold, wait for the owner's decision ` +
        `(default ${WAIT_APPROVAL_DEFAULT_SECONDS} s), then pay once approved`,
    )
    .option(
      '--approval-id <id>',
      'pay with an approval an earlier APPROVAL_REQUIRED named (the same request), once the owner approved it',
    )
  return platformAction(cmd, ctx, run, (a, c) => human(a, c, cmd.opts<PayOptions>().out))
}

/** Where a payment shows: its transaction, or the channel a voucher drew on (no transaction of its own). */
function settledBy(r: NonNullable<PayResult['receipt']>): string {
  if (r.hold) {
    const h = r.hold
    return (
      `held ${h.held} ${r.token} (auth-capture ${h.id}), captured ${h.captured}, ` +
      `voided ${h.voided} (transaction ${r.transaction}; the seller may capture ` +
      `until ${h.captureDeadline}, refund until ${h.refundDeadline})`
    )
  }
  if (!r.channel) return `transaction ${r.transaction}`
  const deposit = r.channel.deposited
    ? `deposited ${r.channel.deposited} ${r.token} (transaction ${r.transaction}); `
    : ''
  return `${deposit}voucher on channel ${r.channel.id}, ${r.channel.cumulative} ${r.token} charged in total`
}
