import { Command } from 'commander'
import type { Limits, SetLimitsBody } from '../../../sdk/platform/limits.js'
import { label, type CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { decimalArg, needUser, ok, platformAction, type CommandResult, type PlatformDeps } from '../platform-shared.js'
import { agentArg } from './show.js'

export type LimitsOptions = { agent?: string; perPayment?: string; daily?: string; allowedHosts?: string; approveAbove?: string }

/** An agent's spending limits and what today's window has left; with flags, sets them first (user key). `none` clears one. */
export async function run(opts: LimitsOptions, deps: PlatformDeps): Promise<CommandResult<Limits>> {
  const id = agentArg(opts.agent, deps, '--agent')
  const body: SetLimitsBody = {}
  const usd = (v: string, flag: string) => {
    if (v === 'none') return null
    const d = decimalArg(v, flag)
    if ((d.split('.')[1] ?? '').length > 6) throw usageError(`${flag} '${v}' has more than 6 decimal places`)
    return d
  }
  if (opts.perPayment !== undefined) body.perPaymentUsd = usd(opts.perPayment, '--per-payment')
  if (opts.daily !== undefined) body.dailyUsd = usd(opts.daily, '--daily')
  if (opts.approveAbove !== undefined) body.approveAboveUsd = usd(opts.approveAbove, '--approve-above')
  if (opts.allowedHosts !== undefined) {
    const hosts = opts.allowedHosts === 'none' ? null : opts.allowedHosts.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)
    if (hosts?.some((h) => !/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(h))) throw usageError(`--allowed-hosts takes host names such as api.example.com,*.example.com (no scheme, path or port)`)
    body.allowedHosts = hosts
  }
  if (Object.keys(body).length === 0) return ok(await deps.platform.getLimits({ params: { id } }))
  needUser(deps, 'agent limits --per-payment/--daily/--allowed-hosts/--approve-above')
  return ok(await deps.platform.setLimits({ params: { id }, body }))
}

export function human(l: Limits, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'per payment')}${l.perPaymentUsd ? `${l.perPaymentUsd} USD` : 'no limit'}`,
    `${label(ctx, 'daily')}${l.dailyUsd ? `${l.dailyUsd} USD (${l.remainingTodayUsd} left)` : 'no limit'}`,
    `${label(ctx, 'hosts')}${l.allowedHosts ? l.allowedHosts.join(', ') : 'any'}`,
    `${label(ctx, 'approval')}${l.approveAboveUsd ? `above ${l.approveAboveUsd} USD (the owner approves it first)` : 'never asked'}`,
    `${label(ctx, 'spent today')}${l.spentTodayUsd} USD`,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('limits')
    .description("show an agent's spending limits; with flags, set them (none clears one)")
    .option('--agent <id>', 'agent id (default: the logged-in agent)')
    .option('--per-payment <usd>', 'most one pay, send or swap may spend, or none')
    .option('--daily <usd>', 'most spent in a rolling 24 hours, or none')
    .option('--allowed-hosts <hosts>', 'comma-separated hosts pay may pay (*.example.com matches sub-domains), or none')
    .option('--approve-above <usd>', 'a pay or send above this waits for your approval (parx approvals), or none')
  return platformAction(cmd, ctx, run, human)
}
