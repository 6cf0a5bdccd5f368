import { Command } from 'commander'
import type { AlertRule, CreateAlertRuleBody } from '../../../sdk/platform/alerts.js'
import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { usdFlag } from '../budget-flags.js'
import {
  type CommandResult,
  decimalArg,
  needUser,
  ok,
  type PlatformDeps,
  platformAction,
  uuidArg,
} from '../platform-shared.js'
import { ruleLine } from './list.js'

export type AddOptions = {
  budget?: string
  window?: string
  of?: string
  paymentAbove?: string
  newPayee?: boolean
  refusals?: string
  within?: string
  spendRate?: string
  period?: string
  agent?: string
}

const KIND_FLAGS = ['--budget', '--payment-above', '--new-payee', '--refusals', '--spend-rate'] as const
const WINDOWS = ['hour', 'day', 'week', 'month'] as const

function wholeArg(v: string, flag: string, min: number, max: number): number {
  if (!/^\d{1,6}$/.test(v.trim()) || Number(v) < min || Number(v) > max)
    throw usageError(`${flag} '${v}' is not a whole number from ${min} to ${max}`)
  return Number(v)
}

/** `--within`: minutes as `10m`, `2h`, `1d` or a bare number of minutes; 1 minute to 7 days. */
export function minutesArg(v: string): number {
  const m = /^(\d{1,5})([mhd]?)$/.exec(v.trim())
  if (!m) throw usageError(`--within '${v}' is not a duration such as 10m, 2h or 1d`)
  const minutes = Number(m[1]) * ({ '': 1, m: 1, h: 60, d: 1440 } as const)[m[2] as '' | 'm' | 'h' | 'd']
  if (minutes < 1 || minutes > 10_080) throw usageError(`--within '${v}' must be from 1 minute to 7 days`)
  return minutes
}

function oneOf<T extends string>(v: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (v === undefined) return undefined
  if (!(allowed as readonly string[]).includes(v))
    throw usageError(`${flag} '${v}' is not one of ${allowed.join(', ')}`)
  return v as T
}

/** The rule the flags describe: exactly one kind flag, and only the flags that kind takes. */
export function ruleBody(o: AddOptions): CreateAlertRuleBody {
  const given = [
    o.budget !== undefined,
    o.paymentAbove !== undefined,
    !!o.newPayee,
    o.refusals !== undefined,
    o.spendRate !== undefined,
  ]
  if (given.filter(Boolean).length !== 1) throw usageError(`pass exactly one of ${KIND_FLAGS.join(', ')}`)
  const agentId = o.agent === undefined ? undefined : uuidArg(o.agent, '--agent')
  const of = oneOf(o.of, ['agent', 'user'] as const, '--of')
  const only = (allowed: string[]) => {
    const extra = (
      [
        ['window', '--window'],
        ['of', '--of'],
        ['within', '--within'],
        ['period', '--period'],
      ] as const
    ).filter(([k, f]) => o[k] !== undefined && !allowed.includes(f))
    if (extra.length)
      throw usageError(`${extra.map(([, f]) => f).join(', ')} does not go with ${KIND_FLAGS[given.indexOf(true)]}`)
  }
  if (o.budget !== undefined) {
    only(['--window', '--of'])
    const window = oneOf(o.window, WINDOWS, '--window')
    if (!window) throw usageError('--budget needs --window hour|day|week|month')
    return { kind: 'budget', percent: wholeArg(o.budget, '--budget', 1, 100), window, agentId, ...(of ? { of } : {}) }
  }
  if (o.paymentAbove !== undefined) {
    only([])
    const usd = usdFlag(o.paymentAbove, '--payment-above')
    if (usd === null) throw usageError('--payment-above takes a USD amount')
    return { kind: 'payment_above', usd, agentId }
  }
  if (o.newPayee) {
    only(['--of'])
    return { kind: 'new_payee', agentId, ...(of ? { of } : {}) }
  }
  if (o.refusals !== undefined) {
    only(['--within'])
    if (o.within === undefined) throw usageError('--refusals needs --within <duration> (such as 10m)')
    return {
      kind: 'refusals',
      count: wholeArg(o.refusals, '--refusals', 1, 1000),
      withinMinutes: minutesArg(o.within),
      agentId,
    }
  }
  only(['--period'])
  const factor = decimalArg(o.spendRate!, '--spend-rate')
  if ((factor.split('.')[1] ?? '').length > 3)
    throw usageError(`--spend-rate '${factor}' has more than 3 decimal places`)
  return { kind: 'spend_rate', factor, period: oneOf(o.period, ['hour', 'day'] as const, '--period') ?? 'day', agentId }
}

/**
 * Adds one alert rule; it fires once per crossing to the webhooks of your endpoints and `parx alerts history`. User key
 * only.
 */
export async function run(opts: AddOptions, deps: PlatformDeps): Promise<CommandResult<AlertRule>> {
  const body = ruleBody(opts)
  needUser(deps, 'alerts add')
  return ok(await deps.platform.createAlertRule({ body }))
}

export function human(r: AlertRule): string[] {
  return [
    `Added ${ruleLine(r)}`,
    'It fires once per crossing: to the webhook URLs of your endpoints (alert.* events) and in `parx alerts history`.',
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('add')
    .description('add an alert rule (exactly one of --budget, --payment-above, --new-payee, --refusals, --spend-rate)')
    .option('--budget <percent>', 'a budget window crossed at this percent (1-100); with --window')
    .option('--window <window>', 'the budget window: hour, day, week or month (rolling)')
    .option(
      '--of <scope>',
      "--budget and --new-payee: the agent's own (default with --agent) or the user's across all agents (user)",
    )
    .option('--payment-above <usd>', 'one pay, send or swap above this many USD')
    .option('--new-payee', 'a pay to a seller host never paid before')
    .option(
      '--refusals <n>',
      'this many refusals of one agent (limits, rules, frozen, approval not usable); with --within',
    )
    .option('--within <duration>', 'the refusals window: 10m, 2h, 1d (at most 7 days)')
    .option('--spend-rate <factor>', "an agent's spend over the last period above this many times its 7-day average")
    .option('--period <period>', 'the spend rate period: hour or day (default day)')
    .option('--agent <id>', 'watch only this agent (default: all your agents)')
  return platformAction(cmd, ctx, run, human)
}
