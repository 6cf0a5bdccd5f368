import { Command } from 'commander'
import type { Payment, PaymentsPage } from '../../sdk/platform/history.js'
import type { SignedReceipt } from '../../sdk/platform/receipts.js'
import type { CliContext } from '../context.js'
import { csvLines } from '../csv.js'
import { usageError } from '../errors.js'
import { historyAgent, historyQuery } from './history-args.js'
import { exportReceipts, type PaymentsOptions, receiptLines } from './payments-receipts.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, spinning } from './platform-shared.js'

export type { PaymentsOptions }

/** The most pages `--page` walks through (each one request): beyond it, page with --cursor. */
export const MAX_PAGE = 100

/**
 * An agent's pays, sends and swaps, newest first (GET /api/agents/:id/payments). One page per
 * call: `--cursor` is the previous page's nextCursor; `--page N` walks N-1 pages from the newest
 * (or from --cursor), for a person who thinks in page numbers.
 */
export async function run(
  opts: PaymentsOptions,
  deps: PlatformDeps,
): Promise<CommandResult<PaymentsPage | SignedReceipt[]>> {
  if (opts.receipts) return ok(await exportReceipts(opts, deps))
  const query: Record<string, string | undefined> = { ...historyQuery(opts) }
  if (opts.limit !== undefined) {
    if (!/^\d{1,3}$/.test(opts.limit.trim()) || Number(opts.limit) < 1 || Number(opts.limit) > 200)
      throw usageError(`--limit '${opts.limit}' is not a whole number from 1 to 200`)
    query.limit = opts.limit.trim()
  }
  if (opts.cursor !== undefined) {
    if (!/^\d{1,15}_[0-9a-f-]{36}$/i.test(opts.cursor.trim()))
      throw usageError(`--cursor '${opts.cursor}' is not a cursor parx gave out (pass nextCursor as printed)`)
    query.cursor = opts.cursor.trim()
  }
  let page = 1
  if (opts.page !== undefined) {
    page = Number(opts.page)
    if (!/^\d{1,3}$/.test(opts.page.trim()) || page < 1 || page > MAX_PAGE)
      throw usageError(`--page '${opts.page}' is not a page number from 1 to ${MAX_PAGE} (page further with --cursor)`)
  }
  const id = await historyAgent(opts, deps)
  return ok(
    await spinning(deps, 'reading payments', async () => {
      let answer = await deps.platform.listPayments({ params: { id }, query })
      for (let n = 1; n < page; n++) {
        if (!answer.nextCursor) return { payments: [], nextCursor: null }
        answer = await deps.platform.listPayments({ params: { id }, query: { ...query, cursor: answer.nextCursor } })
      }
      return answer
    }),
  )
}

export const PAYMENT_COLUMNS = [
  'createdAt',
  'kind',
  'state',
  'amount',
  'token',
  'amountUsd',
  'host',
  'recipient',
  'tx',
  'userOp',
  'reason',
  'id',
] as const
/**
 * An auth-capture pay's hold, in the token's units (empty for every other payment); after the others, so a sheet
 * reading them by position still does.
 */
export const HOLD_COLUMNS = ['holdId', 'held', 'holding', 'captured', 'voided', 'refunded', 'reclaimed'] as const

export function csv(p: PaymentsPage): string[] {
  const hold = (x: Payment) => HOLD_COLUMNS.map((c) => (x.hold ? x.hold[c === 'holdId' ? 'id' : c] : null))
  return csvLines(
    [...PAYMENT_COLUMNS, ...HOLD_COLUMNS],
    p.payments.map((x) => [...PAYMENT_COLUMNS.map((c) => x[c]), ...hold(x)]),
  )
}

export function human(p: PaymentsPage | SignedReceipt[], ctx: CliContext): string[] {
  if (Array.isArray(p)) return receiptLines(p, ctx)
  if (ctx.output === 'csv') return csv(p)
  if (!p.payments.length) return ['No payments.']
  const lines = p.payments.map((x) => line(x, ctx))
  if (p.nextCursor) lines.push(ctx.color.dim(`more: --cursor ${p.nextCursor}`))
  return lines
}

function line(x: Payment, ctx: CliContext): string {
  const plain = (x.state === 'reserved' ? 'pending' : x.state).padEnd(9)
  const state = x.state === 'reserved' ? ctx.color.yellow(plain) : x.state === 'released' ? ctx.color.dim(plain) : plain
  const who = x.kind === 'pay' ? (x.host ?? x.recipient ?? '') : x.kind === 'send' ? `to ${x.recipient}` : ''
  const line = [
    x.createdAt.replace('T', ' ').slice(0, 19),
    x.kind.padEnd(4),
    state,
    `${x.amount} ${x.token}`.padEnd(16),
    who,
    x.tx ? ctx.color.dim(x.tx) : '',
  ]
    .join('  ')
    .trimEnd()
  return x.hold ? `${line}\n${' '.repeat(21)}${holdLine(x.hold, x.token)}` : line
}

/** An auth-capture payment's hold under its line: what was held, captured, and what came back. */
export function holdLine(h: NonNullable<Payment['hold']>, token: string): string {
  const back = [
    ['voided', h.voided],
    ['refunded', h.refunded],
    ['reclaimed', h.reclaimed],
  ]
    .filter(([, v]) => v !== '0')
    .map(([k, v]) => `${k} ${v}`)
  const still = h.holding !== '0' ? `, still held ${h.holding} until ${h.captureDeadline}` : ''
  return `hold ${h.held} ${token}: captured ${h.captured}${back.length ? `, ${back.join(', ')}` : ''}${still}`
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('payments')
    .description("list the agent's pays, sends and swaps, newest first (-o json, -o csv)")
    .option('--agent <id>', 'agent id (a user key reads any of its agents; default: the logged-in agent)')
    .option('--since <when>', 'from this date or time, or a span back from now (7d, 24h)')
    .option('--until <when>', 'before this date or time')
    .option('--kind <kind>', 'pay, send or swap')
    .option('--host <host>', 'pays to this seller host')
    .option('--limit <n>', 'payments per page, 1 to 200 (default 50)')
    .option('--cursor <cursor>', 'the page after this cursor (printed as `more: --cursor ...`, nextCursor in JSON)')
    .option('--page <n>', 'page number, from the newest (walks the pages before it)')
    .option(
      '--receipts',
      "export the signed receipts of the agent's pays instead: JSON " +
        'lines (a JSON array with -o json), for `parx receipt verify`',
    )
  return platformAction(cmd, ctx, run, human)
}
