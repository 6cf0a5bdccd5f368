import type { Command } from 'commander'
import type { WindowsView } from '../../sdk/platform/limits.js'
import { type CliContext, label } from '../context.js'
import { usageError } from '../errors.js'
import { decimalArg } from './platform-shared.js'

/**
 * The budget flags `parx agent limits` and `parx user limits` share: per payment and one per
 * rolling window. Each takes USD, or `none` to clear that limit.
 */
export type BudgetOptions = { perPayment?: string; hourly?: string; daily?: string; weekly?: string; monthly?: string }
export type BudgetBody = {
  perPaymentUsd?: string | null
  hourlyUsd?: string | null
  dailyUsd?: string | null
  weeklyUsd?: string | null
  monthlyUsd?: string | null
}

const FLAGS = [
  ['perPayment', 'perPaymentUsd', '--per-payment', 'most one pay, send or swap may spend'],
  ['hourly', 'hourlyUsd', '--hourly', 'most spent in a rolling hour'],
  ['daily', 'dailyUsd', '--daily', 'most spent in a rolling 24 hours'],
  ['weekly', 'weeklyUsd', '--weekly', 'most spent in a rolling 7 days'],
  ['monthly', 'monthlyUsd', '--monthly', 'most spent in a rolling 30 days'],
] as const

/** A USD flag's value: a decimal of at most 6 places (micro-dollars), or `none` (null) to clear that limit. */
export function usdFlag(v: string, flag: string): string | null {
  if (v === 'none') return null
  const d = decimalArg(v, flag)
  if ((d.split('.')[1] ?? '').length > 6) throw usageError(`${flag} '${v}' has more than 6 decimal places`)
  return d
}

export function budgetBody(opts: BudgetOptions): BudgetBody {
  const body: BudgetBody = {}
  for (const [opt, field, flag] of FLAGS) {
    const v = opts[opt]
    if (v !== undefined) body[field] = usdFlag(v, flag)
  }
  return body
}

export function budgetOptions(cmd: Command, whose: string): Command {
  for (const [, , flag, what] of FLAGS) cmd.option(`${flag} <usd>`, `${what}${whose}, or none`)
  return cmd
}

/** One line per window: its limit, what counts in it, what is left. */
export function windowLines(w: WindowsView, ctx: CliContext, prefix = ''): string[] {
  return (['hour', 'day', 'week', 'month'] as const).map((k) => {
    const x = w[k]
    const figures =
      x.limitUsd === null
        ? `no limit (${x.spentUsd} USD spent)`
        : `${x.limitUsd} USD, ${x.spentUsd} spent, ${x.remainingUsd} left`
    return label(ctx, `${prefix}${k}`) + figures
  })
}
