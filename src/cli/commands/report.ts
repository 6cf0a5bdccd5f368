import { Command } from 'commander'
import type { Report } from '../../sdk/platform/history.js'
import { type CliContext, label } from '../context.js'
import { csvLines } from '../csv.js'
import { type HistoryFilterOptions, historyAgent, historyQuery } from './history-args.js'
import { type CommandResult, ok, type PlatformDeps, platformAction, spinning } from './platform-shared.js'

export type ReportOptions = HistoryFilterOptions

/**
 * What an agent spent over a window (default the last 30 days): totals per UTC day, seller host,
 * token and kind, and its limits with what the rolling day has used (GET /api/agents/:id/report).
 */
export async function run(opts: ReportOptions, deps: PlatformDeps): Promise<CommandResult<Report>> {
  const query = historyQuery(opts)
  const id = await historyAgent(opts, deps)
  return ok(await spinning(deps, 'reading the report', () => deps.platform.report({ params: { id }, query })))
}

export const REPORT_COLUMNS = ['section', 'key', 'count', 'usd', 'pending', 'amount'] as const
/** The auth-capture sections: one row per token and amount of the window's holds. */
const HOLD_SECTIONS = ['held', 'holding', 'captured', 'voided', 'refunded', 'reclaimed'] as const

/**
 * One table a spreadsheet opens: a row per total (section total, day, host, token, kind; `amount`
 * is the token amount, for token rows), the auth-capture holds as `hold-held`, `hold-captured`,
 * `hold-voided`, `hold-refunded`... rows per token (count: the holds; amount: the sum), and the
 * limits as `limit` rows whose usd is the value (empty: no limit of that kind).
 */
export function csv(r: Report): string[] {
  const t = (section: string, key: string, x: Report['total'], amount?: string) => [
    section,
    key,
    x.count,
    x.usd,
    x.pending,
    amount,
  ]
  const l = r.limits
  return csvLines(REPORT_COLUMNS, [
    t('total', `${r.since}/${r.until}`, r.total),
    ...r.byDay.map((x) => t('day', x.day, x)),
    ...r.byHost.map((x) => t('host', x.host, x)),
    ...r.byToken.map((x) => t('token', x.token, x, x.amount)),
    ...r.byKind.map((x) => t('kind', x.kind, x)),
    ...(r.holds ?? []).flatMap((h) => HOLD_SECTIONS.map((k) => [`hold-${k}`, h.token, h.count, null, null, h[k]])),
    ['limit', 'perPaymentUsd', null, l.perPaymentUsd, null, null],
    ['limit', 'dailyUsd', null, l.dailyUsd, null, null],
    ['limit', 'spentTodayUsd', null, l.spentTodayUsd, null, null],
    ['limit', 'remainingTodayUsd', null, l.remainingTodayUsd, null, null],
  ])
}

export function human(r: Report, ctx: CliContext): string[] {
  if (ctx.output === 'csv') return csv(r)
  const usd = (x: Report['total']) => `${x.usd} USD${x.pending ? ctx.color.yellow(` (${x.pending} pending)`) : ''}`
  const n = (c: number) => `${c} ${c === 1 ? 'payment' : 'payments'}`
  const rows = (title: string, items: { key: string; x: Report['total']; extra?: string }[]) =>
    items.length
      ? [
          ctx.color.bold(title),
          ...items.map(
            (i) => `  ${label(ctx, i.key)}${n(i.x.count).padEnd(13)} ${i.extra ? `${i.extra}  ` : ''}${usd(i.x)}`,
          ),
        ]
      : []
  const l = r.limits
  return [
    `${label(ctx, 'window')}${r.since} to ${r.until}`,
    `${label(ctx, 'total')}${n(r.total.count)}, ${usd(r.total)}`,
    `${label(ctx, 'per payment')}${l.perPaymentUsd ? `${l.perPaymentUsd} USD` : 'no limit'}`,
    label(ctx, 'daily limit') +
      (l.dailyUsd
        ? `${l.dailyUsd} USD, ${l.spentTodayUsd} used in the last 24 h, ${l.remainingTodayUsd} left`
        : `no limit (${l.spentTodayUsd} USD in the last 24 h)`),
    ...rows(
      'per day',
      r.byDay.map((x) => ({ key: x.day, x })),
    ),
    ...rows(
      'per host',
      r.byHost.map((x) => ({ key: x.host, x })),
    ),
    ...rows(
      'per token',
      r.byToken.map((x) => ({ key: x.token, x, extra: `${x.amount} ${x.token}` })),
    ),
    ...rows(
      'per kind',
      r.byKind.map((x) => ({ key: x.kind, x })),
    ),
    // A daemon from before holds in the report sends none.
    ...(r.holds?.length
      ? [ctx.color.bold('auth-capture holds'), ...r.holds.map((h) => `  ${label(ctx, h.token)}${holdTotals(h)}`)]
      : []),
  ]
}

/** A token's holds in a line: what was held, captured, what came back and what is still held. */
export function holdTotals(h: Report['holds'][number]): string {
  const back = (['voided', 'refunded', 'reclaimed'] as const).filter((k) => h[k] !== '0').map((k) => `${k} ${h[k]}`)
  const n = `${h.count} ${h.count === 1 ? 'hold' : 'holds'}`
  return (
    `${n.padEnd(13)} held ${h.held} ${h.token}: captured ` +
    `${h.captured}${back.length ? `, ${back.join(', ')}` : ''}${h.holding !== '0' ? `, still held ${h.holding}` : ''}`
  )
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('report')
    .description('what the agent spent per day, host and token, with its limits (-o json, -o csv)')
    .option('--agent <id>', 'agent id (a user key reads any of its agents; default: the logged-in agent)')
    .option('--since <when>', 'from this date or time, or a span back from now (7d, 24h); default 30 days ago')
    .option('--until <when>', 'before this date or time (default now)')
    .option('--kind <kind>', 'pay, send or swap only')
    .option('--host <host>', 'pays to this seller host only')
  return platformAction(cmd, ctx, run, human)
}
