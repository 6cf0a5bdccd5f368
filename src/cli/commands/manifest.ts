import { Command } from 'commander'
import type { Manifest } from '../../sdk/platform/manifest.js'
import { type CliContext, label } from '../context.js'
import { type CommandResult, ok, type PlatformDeps, platformAction } from './platform-shared.js'

/** The platform manifest: networks, tokens, payment protocols, limits and the agent routes (no key needed). */
export async function run(_opts: object, deps: PlatformDeps): Promise<CommandResult<Manifest>> {
  return ok(await deps.platform.manifest({}))
}

export function human(m: Manifest, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'platform')}${m.name} ${m.version} (${m.profile})`,
    ...m.networks.map(
      (n) =>
        `${label(ctx, n.key)}${n.tokens.map((t) => t.symbol).join(', ')}; ` +
        `${n.sendMethod}${n.swapPairs.length ? `; swaps ${n.swapPairs.map(([f, t]) => `${f}->${t}`).join(', ')}` : ''}`,
    ),
    `${label(ctx, 'payments')}${m.payments.protocols.join(', ')} via ${m.payments.facilitator}`,
    `${label(ctx, 'receipt signer')}${m.receipts.signer ?? 'none (this deployment signs no receipts)'}`,
    `${label(ctx, 'limits')}${m.limits.kinds.join(', ')} ` +
      `(${m.limits.currency}); counted by ${m.limits.countedBy.join(', ')}`,
    `${label(ctx, 'agent routes')}${m.routes.length}`,
    ...m.routes.map((r) => `  ${r.method.padEnd(6)} ${r.path}  ${ctx.color.dim(r.summary)}`),
  ]
}

export function define(ctx: () => CliContext): Command {
  return platformAction(
    new Command('manifest').description('the platform manifest: networks, tokens, payments, limits, agent routes'),
    ctx,
    run,
    human,
  )
}
