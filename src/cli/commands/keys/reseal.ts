import type { Command } from 'commander'
import { type CliContext, emit, label } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand } from './shared.js'

/** What the daemon answers (daemon/platform/reseal.ts). */
export type ResealResult = {
  keyId: string
  agents: { resealed: number; current: number; unopened: string[] }
  webhooks: { resealed: number; current: number; unopened: string[] }
}

/**
 * Re-seals every agent wallet key and webhook secret under the platform wallet key the daemon now
 * runs with, after a rotation: the new key in keys.platformWallet (PARX_PLATFORM_WALLET_KEY), the old
 * one in keys.platformWalletPrevious (PARX_PLATFORM_WALLET_PREVIOUS_KEYS) on every replica. Once it
 * reports nothing left unopened, the old key can be dropped. The keys never cross the wire.
 */
export async function run(opts: OperatorOptions, ctx: CliContext): Promise<ResealResult> {
  const r = await operatorCall<ResealResult>(ctx, opts, '/api/operator/platform/reseal', { method: 'POST', body: {} })
  const unopened = [
    ...r.agents.unopened.map((id) => `agent ${id}`),
    ...r.webhooks.unopened.map((id) => `webhook of endpoint ${id}`),
  ]
  emit(ctx, r, () => [
    `${label(ctx, 'key id')}${r.keyId}`,
    `${label(ctx, 'agents')}${r.agents.resealed} re-sealed, ${r.agents.current} already current`,
    `${label(ctx, 'webhooks')}${r.webhooks.resealed} re-sealed, ${r.webhooks.current} already current`,
    unopened.length
      ? `Not opened by any configured key, left as they were (keep the old key ` +
        `configured, add the missing one, run again): ${unopened.join(', ')}`
      : 'Everything is sealed under the current key: the previous keys can be removed from the configuration.',
  ])
  return r
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('reseal')
    .description(
      're-seal every agent wallet and webhook secret under the current platform wallet key (after rotating it)',
    )
    .action(async (opts: OperatorOptions) => void (await run(opts, ctx())))
}
