import { Command } from 'commander'
import type { RefundAnswer } from '../../../sdk/platform/refunds.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import { type CommandResult, decimalArg, needUser, ok, type PlatformDeps, platformAction } from '../platform-shared.js'

export type RefundOptions = { paymentId: string; amount?: string }

/**
 * Returns a captured auth-capture payment of one of the user's endpoints to its buyer (all of it,
 * or `--amount` in the endpoint's token), before its refund deadline; the endpoint's payTo wallet funds it.
 */
export async function run(opts: RefundOptions, deps: PlatformDeps): Promise<CommandResult<RefundAnswer>> {
  const paymentId = (opts.paymentId ?? '').trim()
  if (!/^0x[0-9a-fA-F]{64}$/.test(paymentId))
    throw usageError(
      `<payment-id> '${opts.paymentId}' is not a payment id (0x and 64 hex ` +
        `digits: PAYMENT-RESPONSE extra.paymentInfoHash, or the webhook's paymentId)`,
    )
  const amount = opts.amount === undefined ? undefined : decimalArg(opts.amount, '--amount')
  needUser(deps, 'endpoint refund')
  return ok(await deps.platform.refundPayment({ body: { paymentId, ...(amount ? { amount } : {}) } }))
}

export function human(r: RefundAnswer, ctx: CliContext): string[] {
  return [
    `Refunded ${r.amount} ${r.token} on ${r.network} to the buyer.`,
    `${label(ctx, 'payment')}${r.paymentId}`,
    `${label(ctx, 'captured')}${r.captured} ${r.token}, refunded ${r.refunded} in all`,
    `${label(ctx, 'transaction')}${r.transaction}`,
    `${label(ctx, 'until')}${r.refundDeadline} (the rest may be refunded until then)`,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('refund')
    .description(
      "return a captured auth-capture payment of one of your endpoints to its buyer (the endpoint's wallet funds it)",
    )
    .argument('<payment-id>', "the payment's id (PAYMENT-RESPONSE extra.paymentInfoHash, or the webhook's paymentId)")
    .option('--amount <amount>', 'how much to return, in the endpoint token (default: all captured and not refunded)')
  return platformAction(cmd, ctx, run, human)
}
